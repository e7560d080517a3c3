//go:build windows

package secretfile

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"golang.org/x/sys/windows"

	"github.com/ocfetch/ocfetch/internal/winacl"
)

// checkPrivate refuses a secret file whose DACL lets anyone but its owner,
// this user and the machine's administrators read or write it
// ([exposedTo]), with [ErrExposed], naming who and the icacls command that
// fixes it. A file under the user's profile (%AppData%, where ocfetch
// creates them) inherits the profile's list — the user, SYSTEM,
// Administrators — and passes. The mode bits, which stand only for the
// read-only attribute here, are not looked at. The security descriptor is
// read from the open handle, so it is the very file read.
func checkPrivate(path string, f *os.File, _ fs.FileInfo) error {
	sd, err := securityOf(f)
	if err != nil {
		return fmt.Errorf("%s: cannot read who may access it: %w", path, err)
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("%s: cannot tell which user this is: %w", path, err)
	}
	me := user.User.Sid.String()
	owner := ""
	if o, _, err := sd.Owner(); err == nil && o != nil {
		owner = o.String()
	}
	var entries []winacl.Entry
	dacl, _, err := sd.DACL()
	null := err != nil || dacl == nil
	if !null {
		if entries, err = winacl.Entries(dacl); err != nil {
			return fmt.Errorf("%s: cannot read who may access it: %w", path, err)
		}
	}
	who := exposedTo(entries, null, func(sid string) bool { return sid == me || sid == owner || administrator(sid) })
	if who == "" {
		return nil
	}
	return fmt.Errorf("%s: %w: %s may access it (fix: %s)", path, ErrExposed, accountName(who), windowsFix(path, me))
}

// securityOf reads the owner and DACL of the file f holds open.
func securityOf(f *os.File) (*windows.SECURITY_DESCRIPTOR, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var sd *windows.SECURITY_DESCRIPTOR
	var serr error
	if err := rc.Control(func(h uintptr) {
		sd, serr = windows.GetSecurityInfo(windows.Handle(h), windows.SE_FILE_OBJECT,
			windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	}); err != nil {
		return nil, err
	}
	return sd, serr
}

// accountName names a SID for a message: "DOMAIN\name (S-1-…)" where the
// system knows it, else the SID (or what exposedTo said) as it is.
func accountName(sid string) string {
	s, err := windows.StringToSid(sid)
	if err != nil {
		return sid
	}
	account, domain, _, err := s.LookupAccount("")
	if err != nil || account == "" {
		return sid
	}
	if domain != "" {
		account = domain + `\` + account
	}
	return account + " (" + sid + ")"
}

// makePrivate gives the file at path a DACL of its own, not inherited:
// full control for this user, SYSTEM and the Administrators group — what
// a file under the user's profile inherits, and what [checkPrivate]
// accepts wherever the file is.
func makePrivate(path string) error {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return err
	}
	sids := []*windows.SID{tu.User.Sid}
	for _, w := range []windows.WELL_KNOWN_SID_TYPE{windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid} {
		sid, err := windows.CreateWellKnownSid(w)
		if err != nil {
			return err
		}
		sids = append(sids, sid)
	}
	var pin runtime.Pinner // the entries point at the SIDs
	defer pin.Unpin()
	entries := make([]windows.EXPLICIT_ACCESS, 0, len(sids))
	for _, sid := range sids {
		pin.Pin(sid)
		entries = append(entries, windows.EXPLICIT_ACCESS{
			AccessPermissions: windows.GENERIC_ALL,
			AccessMode:        windows.GRANT_ACCESS,
			Inheritance:       windows.NO_INHERITANCE,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeType:  windows.TRUSTEE_IS_UNKNOWN,
				TrusteeValue: windows.TrusteeValueFromSID(sid),
			},
		})
	}
	acl, err := windows.ACLFromEntries(entries, nil)
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
}
