package managed

// The judgement of one Windows DACL entry (owner_windows.go reads them),
// apart from the system calls, so that it is tested everywhere.

// aclEntry is one access control entry of a DACL.
type aclEntry struct {
	Type  uint8 // ACE_HEADER.AceType
	Flags uint8 // ACE_HEADER.AceFlags
	Mask  uint32
	// SID is the trustee's; "" for the object-specific types, whose SID
	// is not where a plain entry keeps it.
	SID string
}

// The ACE types and flags writerOf tells apart (winnt.h).
const (
	aceAccessAllowed               = 0x0
	aceAccessDenied                = 0x1
	aceAccessAllowedObject         = 0x5
	aceAccessAllowedCallback       = 0x9
	aceAccessAllowedCallbackObject = 0xb
	aceInheritOnly                 = 0x8
)

// writerOf names who e lets change what it guards with one of
// writeRights, when that is not an administrator: the SID of an allow
// entry, plain or callback (conditional, counted as granting: fail
// closed), or a description of an object-specific allow entry; "" for an
// entry that grants none of writeRights (a deny, an inherit-only entry,
// other rights) or grants them to an administrator.
func writerOf(e aclEntry, writeRights uint32, admin func(string) bool) string {
	if e.Flags&aceInheritOnly != 0 || e.Mask&writeRights == 0 {
		return ""
	}
	switch e.Type {
	case aceAccessAllowed, aceAccessAllowedCallback:
		if !admin(e.SID) {
			return e.SID
		}
	case aceAccessAllowedObject, aceAccessAllowedCallbackObject:
		return "an object-specific access entry"
	}
	return ""
}
