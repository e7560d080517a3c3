//go:build windows

package secretfile

import (
	"fmt"
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
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
	var entries []aclEntry
	dacl, _, err := sd.DACL()
	null := err != nil || dacl == nil
	if !null {
		for i := uint32(0); i < uint32(dacl.AceCount); i++ {
			var ace *windows.ACCESS_ALLOWED_ACE
			if err := windows.GetAce(dacl, i, &ace); err != nil {
				return fmt.Errorf("%s: cannot read who may access it: %w", path, err)
			}
			e := aclEntry{Type: ace.Header.AceType, Flags: ace.Header.AceFlags, Mask: uint32(ace.Mask)}
			if e.Type == aceAccessAllowed || e.Type == aceAccessDenied || e.Type == aceAccessAllowedCallback {
				e.SID = (*windows.SID)(unsafe.Pointer(&ace.SidStart)).String()
			}
			entries = append(entries, e)
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
