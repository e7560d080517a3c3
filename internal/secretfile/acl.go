package secretfile

import (
	"strings"

	"github.com/ocfetch/ocfetch/internal/winacl"
)

// On Windows a file's mode bits say only whether it is read-only; who may
// read it is its DACL's to say (package winacl judges one). What a secret
// file's DACL may grant, and to whom, is here, apart from the system
// calls that read it (mode_windows.go), so that it is tested everywhere.

// secretRights are the rights that let a trustee read the secret, change
// it, or give itself either: FILE_READ_DATA, FILE_WRITE_DATA,
// FILE_APPEND_DATA, WRITE_DAC, WRITE_OWNER, GENERIC_READ, GENERIC_WRITE,
// GENERIC_ALL. Reading attributes or the security descriptor is not
// reading the secret.
const secretRights = 0x1 | 0x2 | 0x4 | 0x40000 | 0x80000 | 0x80000000 | 0x40000000 | 0x10000000

// exposedTo names who besides the file's owner may read or write it, by
// its DACL: the SID of the first allow entry (not inherit-only) that
// grants one of [secretRights] to a trustee mine does not accept, a
// description for an object-specific allow entry, "Everyone (…)" for a
// file without a DACL; "" when nobody. Deny entries are not weighed: they
// take rights away, and a grant they override is still refused (fail
// closed; the fix replaces the whole list).
func exposedTo(dacl []winacl.Entry, nullDACL bool, mine func(sid string) bool) string {
	if nullDACL {
		return "Everyone (the file has no access control list)"
	}
	return winacl.Grantee(dacl, secretRights, mine)
}

// administrator reports whether sid is the system's or an administrator's,
// who may read any file on the machine anyway (as root may on Unix):
// SYSTEM, the Administrators group, OWNER RIGHTS (the owner itself),
// TrustedInstaller, and a domain's Administrator account (RID 500),
// Domain Admins (512) and Enterprise Admins (519).
func administrator(sid string) bool {
	switch sid {
	case "S-1-5-18", "S-1-5-32-544", "S-1-3-4",
		"S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464":
		return true
	}
	if rest, ok := strings.CutPrefix(sid, "S-1-5-21-"); ok && strings.Count(rest, "-") == 3 {
		_, rid, _ := strings.Cut(rest[strings.LastIndexByte(rest, '-'):], "-")
		return rid == "500" || rid == "512" || rid == "519"
	}
	return false
}

// windowsFix is the command that makes path private to the user whose
// SID is sid: no inherited entries, full control for that user alone
// (icacls's *SID form needs no account name). Quoted for both cmd.exe and
// PowerShell.
func windowsFix(path, sid string) string {
	return `icacls "` + path + `" /inheritance:r /grant:r "*` + sid + `:F"`
}
