//go:build windows

package trust

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/windows"
)

// dirID returns the identity of the directory at path: its volume serial
// number and file index.
func dirID(path string) (string, error) {
	f, err := os.Open(path) // os.Open opens directories (FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", path)
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%d", info.VolumeSerialNumber, uint64(info.FileIndexHigh)<<32|uint64(info.FileIndexLow)), nil
}

// samePath compares real paths as Windows file systems do: ignoring case.
func samePath(a, b string) bool { return strings.EqualFold(a, b) }
