//go:build windows

package winacl

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// Entries reads the entries of dacl, with the SID of each plain, deny and
// callback entry (an object-specific entry keeps its SID at another
// offset, and gets none).
func Entries(dacl *windows.ACL) ([]Entry, error) {
	entries := make([]Entry, 0, dacl.AceCount)
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return nil, err
		}
		e := Entry{Type: ace.Header.AceType, Flags: ace.Header.AceFlags, Mask: uint32(ace.Mask)}
		if e.Type == AccessAllowed || e.Type == AccessDenied || e.Type == AccessAllowedCallback {
			e.SID = (*windows.SID)(unsafe.Pointer(&ace.SidStart)).String()
		}
		entries = append(entries, e)
	}
	return entries, nil
}
