package winacl

import "testing"

// TestGrantee: who, besides the trustees accepted, a DACL lets in with
// some rights. Every kind of allow entry Windows has grants: a callback
// (conditional) entry as a plain one, and an object-specific entry, whose
// trustee is not read, is named as such. Deny entries, inherit-only
// entries and rights other than those asked grant nothing; the first
// granting entry is named.
func TestGrantee(t *testing.T) {
	const users, other = "S-1-5-32-545", "S-1-5-21-1-2-3-1002"
	admin := func(sid string) bool { return sid == "S-1-5-18" || sid == "S-1-5-32-544" }
	const write = 0x2 // FILE_WRITE_DATA
	for _, tc := range []struct {
		name string
		dacl []Entry
		want string
	}{
		{"users may write", []Entry{{Type: AccessAllowed, Mask: write, SID: users}}, users},
		{"a callback entry", []Entry{{Type: AccessAllowedCallback, Mask: write, SID: users}}, users},
		{"an object entry", []Entry{{Type: AccessAllowedObject, Mask: write}}, ObjectEntry},
		{"a callback object entry", []Entry{{Type: AccessAllowedCallbackObject, Mask: write}}, ObjectEntry},
		{"administrators", []Entry{{Type: AccessAllowed, Mask: write, SID: "S-1-5-32-544"}}, ""},
		{"other rights only", []Entry{{Type: AccessAllowed, Mask: 0x1, SID: users}}, ""},
		{"inherit-only", []Entry{{Type: AccessAllowed, Flags: InheritOnly, Mask: write, SID: users}}, ""},
		{"deny", []Entry{{Type: AccessDenied, Mask: write, SID: users}}, ""},
		{"a deny does not cancel a grant", []Entry{{Type: AccessDenied, Mask: write, SID: users}, {Type: AccessAllowed, Mask: write, SID: users}}, users},
		{"the first granting entry", []Entry{{Type: AccessAllowed, Mask: write, SID: "S-1-5-18"}, {Type: AccessAllowed, Mask: write, SID: other}, {Type: AccessAllowed, Mask: write, SID: users}}, other},
		{"an empty list", []Entry{}, ""},
	} {
		if got := Grantee(tc.dacl, write, admin); got != tc.want {
			t.Errorf("%s: Grantee = %q; want %q", tc.name, got, tc.want)
		}
	}
}
