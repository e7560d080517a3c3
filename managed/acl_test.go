package managed

import "testing"

// TestWriterOf: who, besides administrators, a Windows DACL entry lets
// change the policy file. The kinds of allow entry Windows has all grant:
// a callback (conditional) entry as a plain one, and an object-specific
// entry, whose trustee is not read, is refused outright. Deny entries,
// inherit-only entries and rights that change nothing grant nothing.
func TestWriterOf(t *testing.T) {
	const users = "S-1-5-32-545"
	admin := func(sid string) bool { return sid == "S-1-5-18" || sid == "S-1-5-32-544" }
	const write = 0x2 // FILE_WRITE_DATA
	for _, tc := range []struct {
		name string
		e    aclEntry
		want string
	}{
		{"users may write", aclEntry{Type: aceAccessAllowed, Mask: write, SID: users}, users},
		{"a callback entry", aclEntry{Type: aceAccessAllowedCallback, Mask: write, SID: users}, users},
		{"an object entry", aclEntry{Type: aceAccessAllowedObject, Mask: write}, "an object-specific access entry"},
		{"a callback object entry", aclEntry{Type: aceAccessAllowedCallbackObject, Mask: write}, "an object-specific access entry"},
		{"administrators", aclEntry{Type: aceAccessAllowed, Mask: write, SID: "S-1-5-32-544"}, ""},
		{"read only", aclEntry{Type: aceAccessAllowed, Mask: 0x1, SID: users}, ""},
		{"inherit-only", aclEntry{Type: aceAccessAllowed, Flags: aceInheritOnly, Mask: write, SID: users}, ""},
		{"deny", aclEntry{Type: aceAccessDenied, Mask: write, SID: users}, ""},
	} {
		if got := writerOf(tc.e, write, admin); got != tc.want {
			t.Errorf("%s: writerOf = %q; want %q", tc.name, got, tc.want)
		}
	}
}
