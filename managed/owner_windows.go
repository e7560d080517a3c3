//go:build windows

package managed

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/winacl"
)

// DefaultPath is %ProgramData%\ocfetch\policy.json, ProgramData taken from
// the known folder (FOLDERID_ProgramData), not from the environment.
func DefaultPath() (string, error) {
	dir, err := windows.KnownFolderPath(windows.FOLDERID_ProgramData, 0)
	if err != nil {
		return "", fmt.Errorf("the ProgramData folder: %w", err)
	}
	return filepath.Join(dir, "ocfetch", FileName), nil
}

// The SIDs of the platform's administrators.
const (
	sidSystem           = "S-1-5-18"
	sidAdministrators   = "S-1-5-32-544"
	sidTrustedInstaller = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
)

func isAdministrator(owner string) bool {
	switch owner {
	case sidSystem, sidAdministrators, sidTrustedInstaller:
		return true
	}
	return false
}

// fileWriteRights are the rights that let a trustee change the file:
// its data, attributes, deletion, its DACL and its owner.
const fileWriteRights = windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA | windows.FILE_WRITE_EA |
	windows.FILE_WRITE_ATTRIBUTES | windows.DELETE | windows.WRITE_DAC | windows.WRITE_OWNER |
	windows.GENERIC_WRITE | windows.GENERIC_ALL

// dirWriteRights are the rights on the directory that let a trustee
// replace the file in it: deleting a child (0x40, FILE_DELETE_CHILD) or
// the directory, or taking it over. Creating new files in it (which the
// ProgramData folder grants Users, and a subfolder inherits) does not
// touch the administrator's file and is not refused.
const dirWriteRights = 0x40 | windows.DELETE | windows.WRITE_DAC | windows.WRITE_OWNER |
	windows.GENERIC_WRITE | windows.GENERIC_ALL

// checkOwner refuses a file or directory whose owner is not an
// administrator, or whose DACL has an allow entry (not inherit-only;
// plain, callback or object-specific: [winacl.Grantee]) granting a right that
// could change the file ([fileWriteRights], [dirWriteRights]) to a
// trustee who is not one. CREATOR OWNER entries are
// inherit-only on a folder and so are skipped. A missing DACL
// (everyone may do everything) is refused too. Deny entries are ignored:
// they only take rights away.
func checkOwner(path string, _ fs.FileInfo, _ securefile.DirOwner, admin func(string) bool) error {
	dir := filepath.Dir(path)
	if err := writableOnlyByAdmin(path, "the file", fileWriteRights, admin); err != nil {
		return err
	}
	return writableOnlyByAdmin(dir, "its directory "+dir, dirWriteRights, admin)
}

func writableOnlyByAdmin(name, label string, writeRights uint32, admin func(string) bool) error {
	sd, err := windows.GetNamedSecurityInfo(name, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("%s: cannot read its security descriptor: %w", name, err)
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return fmt.Errorf("%s: cannot read its owner", name)
	}
	if !admin(owner.String()) {
		return fmt.Errorf("%s is owned by %s, not an administrator", label, owner.String())
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return fmt.Errorf("%s has no DACL: everyone may write it", label)
	}
	entries, err := winacl.Entries(dacl)
	if err != nil {
		return fmt.Errorf("%s: cannot read its DACL: %w", name, err)
	}
	if who := winacl.Grantee(entries, writeRights, admin); who != "" {
		return fmt.Errorf("%s can be written by %s, who is not an administrator", label, who)
	}
	return nil
}
