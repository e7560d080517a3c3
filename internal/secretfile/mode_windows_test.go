package secretfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// setDACL replaces path's DACL with one allow entry per SID (full
// control), none inherited from its directory.
func setDACL(t *testing.T, path string, sids ...*windows.SID) {
	t.Helper()
	setDACLInherited(t, path, windows.NO_INHERITANCE, sids...)
}

// setDACLInherited is setDACL with entries that path's children inherit
// as inheritance says.
func setDACLInherited(t *testing.T, path string, inheritance uint32, sids ...*windows.SID) {
	t.Helper()
	var pin runtime.Pinner
	defer pin.Unpin()
	var entries []windows.EXPLICIT_ACCESS
	for _, sid := range sids {
		pin.Pin(sid)
		entries = append(entries, windows.EXPLICIT_ACCESS{
			AccessPermissions: windows.GENERIC_ALL,
			AccessMode:        windows.GRANT_ACCESS,
			Inheritance:       inheritance,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeType:  windows.TRUSTEE_IS_UNKNOWN,
				TrusteeValue: windows.TrusteeValueFromSID(sid),
			},
		})
	}
	acl, err := windows.ACLFromEntries(entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := windows.SECURITY_INFORMATION(windows.DACL_SECURITY_INFORMATION | windows.PROTECTED_DACL_SECURITY_INFORMATION)
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, info, nil, nil, acl, nil); err != nil {
		t.Fatal(err)
	}
}

// TestReadWindowsACL: on Windows, where mode 0600 means nothing, a secret
// file is judged by its DACL. One with the entries of a file under the
// user's profile (%AppData%, where ocfetch creates them: the user, SYSTEM,
// Administrators) is read; one that the Users group, or Everyone, may read
// is refused with ErrExposed, naming who and the icacls command that
// fixes it; the file made private to the user is read again. This needs
// Windows's security descriptors, so it runs only there.
func TestReadWindowsACL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", MCPToken)
	if _, _, err := LoadOrCreate(path, fresh, check); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path, check); err != nil {
		// The file inherits the temporary directory's entries, which
		// are not the profile's everywhere (a CI runner's D:\a\_temp).
		t.Logf("a file created in %s: %v", filepath.Dir(path), err)
	}
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	me := tu.User.Sid
	wellKnown := func(w windows.WELL_KNOWN_SID_TYPE) *windows.SID {
		sid, err := windows.CreateWellKnownSid(w)
		if err != nil {
			t.Fatal(err)
		}
		return sid
	}
	setDACL(t, path, me, wellKnown(windows.WinLocalSystemSid), wellKnown(windows.WinBuiltinAdministratorsSid))
	if got, err := Read(path, check); err != nil || got != secret {
		t.Errorf("a file with the profile's entries: %q, %v", got, err)
	}
	for _, group := range []windows.WELL_KNOWN_SID_TYPE{windows.WinBuiltinUsersSid, windows.WinWorldSid} {
		sid := wellKnown(group)
		setDACL(t, path, me, sid)
		_, err = Read(path, check)
		if !errors.Is(err, ErrExposed) || !strings.Contains(err.Error(), sid.String()) || !strings.Contains(err.Error(), "icacls") {
			t.Errorf("a file %s may read: %v; want ErrExposed naming it and icacls", sid, err)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("the error holds the secret: %v", err)
		}
	}
	setDACL(t, path, me)
	if got, err := Read(path, check); err != nil || got != secret {
		t.Errorf("the file made private: %q, %v", got, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// TestCreateWindowsPrivate: a secret file created in a directory whose
// entries every user inherits (a --token-file or --auth-file put in a
// shared folder) does not inherit them: it gets the user's, SYSTEM's and
// Administrators' access alone before the secret is written, and is read
// back. Windows security descriptors: it runs only on Windows.
func TestCreateWindowsPrivate(t *testing.T) {
	dir := t.TempDir()
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	users, err := windows.CreateWellKnownSid(windows.WinBuiltinUsersSid)
	if err != nil {
		t.Fatal(err)
	}
	setDACLInherited(t, dir, windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT, tu.User.Sid, users)
	path := filepath.Join(dir, ProxyCredentials)
	if _, created, err := LoadOrCreate(path, fresh, check); err != nil || !created {
		t.Fatalf("LoadOrCreate = %v, %v; want created", created, err)
	}
	// Read refuses a file Users may access (TestReadWindowsACL).
	if got, err := Read(path, check); err != nil || got != secret {
		t.Fatalf("Read = %q, %v; want the secret, the file private", got, err)
	}
}
