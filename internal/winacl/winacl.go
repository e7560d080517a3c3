// Package winacl judges a Windows discretionary access control list
// (DACL): which allow entry grants some rights to a trustee the caller
// does not accept. The judgement is here, apart from the system calls
// that read a DACL ([Entries], Windows only), so that it is tested on
// every platform. Package managed asks it who may write the policy file,
// internal/secretfile who may read a secret.
package winacl

// Entry is one access control entry of a DACL.
type Entry struct {
	Type  uint8 // ACE_HEADER.AceType
	Flags uint8 // ACE_HEADER.AceFlags
	Mask  uint32
	// SID is the trustee's, in string form; "" for the object-specific
	// types, whose SID is not where a plain entry keeps it.
	SID string
}

// The entry types and flags [Grantee] tells apart (winnt.h).
const (
	AccessAllowed               = 0x0
	AccessDenied                = 0x1
	AccessAllowedObject         = 0x5
	AccessAllowedCallback       = 0x9
	AccessAllowedCallbackObject = 0xb
	InheritOnly                 = 0x8
)

// ObjectEntry is what [Grantee] names for an object-specific allow entry,
// whose trustee it does not read.
const ObjectEntry = "an object-specific access entry"

// Grantee names who the first entry of dacl that grants one of rights
// lets in, when accepted does not accept them: the SID of an allow entry,
// plain or callback (a conditional entry counts as granting: fail
// closed), or [ObjectEntry] for an object-specific allow entry; "" when
// no entry does. Inherit-only entries (they apply to a directory's
// children, not to it) and deny entries grant nothing; a deny entry is
// not weighed against a grant it may override (fail closed: the fix
// replaces the whole list).
func Grantee(dacl []Entry, rights uint32, accepted func(sid string) bool) string {
	for _, e := range dacl {
		if e.Flags&InheritOnly != 0 || e.Mask&rights == 0 {
			continue
		}
		switch e.Type {
		case AccessAllowed, AccessAllowedCallback:
			if !accepted(e.SID) {
				return e.SID
			}
		case AccessAllowedObject, AccessAllowedCallbackObject:
			return ObjectEntry
		}
	}
	return ""
}
