//go:build windows

package testlayers

import "golang.org/x/sys/windows"

// Admin is the managed policy's administrator check in tests: the test's
// own user (its SID) owns the files it writes, as do the administrators.
func Admin(owner string) bool {
	switch owner {
	case "S-1-5-18", "S-1-5-32-544": // SYSTEM, Administrators
		return true
	}
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	return err == nil && u.User.Sid.String() == owner
}
