package secretfile

import (
	"testing"

	"github.com/ocfetch/ocfetch/internal/winacl"
)

// The SIDs of a file under %AppData%: its owner (the user), SYSTEM and
// the Administrators group, inherited; and of the groups that make a
// secret everybody's.
const (
	sidUser          = "S-1-5-21-1004336348-1177238915-682003330-1001"
	sidOtherUser     = "S-1-5-21-1004336348-1177238915-682003330-1002"
	sidDomainAdmins  = "S-1-5-21-1004336348-1177238915-682003330-512"
	sidUsers         = "S-1-5-32-545"
	sidEveryone      = "S-1-1-0"
	sidAuthenticated = "S-1-5-11"
)

// TestExposedTo: what a file's DACL says about who besides its owner may
// read or write it — the Windows counterpart of mode 0600. A file under
// the user's profile (the user, SYSTEM, Administrators) is private; an
// entry granting read or write to Users, Everyone or another user is not;
// an entry that grants nothing of the data, that only a child inherits,
// or that denies, changes nothing; no DACL at all is everyone's.
func TestExposedTo(t *testing.T) {
	mine := func(sid string) bool { return sid == sidUser || administrator(sid) }
	full := uint32(0x1f01ff) // FILE_ALL_ACCESS
	profile := []winacl.Entry{
		{Type: winacl.AccessAllowed, Mask: full, SID: "S-1-5-18"},
		{Type: winacl.AccessAllowed, Mask: full, SID: "S-1-5-32-544"},
		{Type: winacl.AccessAllowed, Mask: full, SID: sidUser},
	}
	with := func(extra ...winacl.Entry) []winacl.Entry {
		return append(append([]winacl.Entry{}, profile...), extra...)
	}
	for _, tc := range []struct {
		name string
		dacl []winacl.Entry
		null bool
		want string
	}{
		{"the user's profile", profile, false, ""},
		{"Domain Admins too", with(winacl.Entry{Type: winacl.AccessAllowed, Mask: full, SID: sidDomainAdmins}), false, ""},
		{"Users may read", with(winacl.Entry{Type: winacl.AccessAllowed, Mask: 0x1200a9, SID: sidUsers}), false, sidUsers},
		{"Everyone generic read", with(winacl.Entry{Type: winacl.AccessAllowed, Mask: 0x80000000, SID: sidEveryone}), false, sidEveryone},
		{"Authenticated Users may modify", with(winacl.Entry{Type: winacl.AccessAllowed, Mask: 0x1301bf, SID: sidAuthenticated}), false, sidAuthenticated},
		{"another user may append", with(winacl.Entry{Type: winacl.AccessAllowed, Mask: 0x4, SID: sidOtherUser}), false, sidOtherUser},
		{"another user may rewrite the DACL", with(winacl.Entry{Type: winacl.AccessAllowed, Mask: 0x40000, SID: sidOtherUser}), false, sidOtherUser},
		{"a callback entry", with(winacl.Entry{Type: winacl.AccessAllowedCallback, Mask: 0x1, SID: sidUsers}), false, sidUsers},
		{"an object entry", with(winacl.Entry{Type: winacl.AccessAllowedObject, Mask: 0x1}), false, "an object-specific access entry"},
		{"attributes only", with(winacl.Entry{Type: winacl.AccessAllowed, Mask: 0x100080 /* SYNCHRONIZE|FILE_READ_ATTRIBUTES */, SID: sidEveryone}), false, ""},
		{"inherit-only", with(winacl.Entry{Type: winacl.AccessAllowed, Flags: winacl.InheritOnly, Mask: full, SID: sidUsers}), false, ""},
		{"a deny entry", with(winacl.Entry{Type: winacl.AccessDenied, Mask: full, SID: sidUsers}), false, ""},
		{"no DACL", nil, true, "Everyone (the file has no access control list)"},
		{"an empty DACL", []winacl.Entry{}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := exposedTo(tc.dacl, tc.null, mine); got != tc.want {
				t.Errorf("exposedTo = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestAdministrator(t *testing.T) {
	for sid, want := range map[string]bool{
		"S-1-5-18":     true, // SYSTEM
		"S-1-5-32-544": true, // Administrators
		"S-1-3-4":      true, // OWNER RIGHTS
		"S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464": true, // TrustedInstaller
		sidDomainAdmins: true,
		"S-1-5-21-1004336348-1177238915-682003330-519": true, // Enterprise Admins
		"S-1-5-21-1004336348-1177238915-682003330-500": true, // the Administrator account
		sidUser:            false,
		sidUsers:           false,
		sidEveryone:        false,
		sidAuthenticated:   false,
		"S-1-5-32-545-512": false,
		"S-1-5-21-512":     false,
	} {
		if got := administrator(sid); got != want {
			t.Errorf("administrator(%s) = %v; want %v", sid, got, want)
		}
	}
}

func TestWindowsFix(t *testing.T) {
	got := windowsFix(`C:\Users\me\AppData\Roaming\ocfetch\mcp-token`, sidUser)
	want := `icacls "C:\Users\me\AppData\Roaming\ocfetch\mcp-token" /inheritance:r /grant:r "*` + sidUser + `:F"`
	if got != want {
		t.Errorf("windowsFix = %s; want %s", got, want)
	}
}
