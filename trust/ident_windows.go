//go:build windows

package trust

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// fileIDInfo is FILE_ID_INFO: the volume serial number and the 128-bit
// file ID (ReFS needs all 128 bits; NTFS's 64 hold a sequence number that
// changes when a file record is reused).
type fileIDInfo struct {
	VolumeSerialNumber uint64
	FileID             [16]byte
}

// identify returns what the file system says about the directory at path:
// its volume serial number and file index, and — on a volume whose file
// IDs are stable (FILE_SUPPORTS_OPEN_BY_FILE_ID: NTFS, ReFS) — its birth:
// the 128-bit file ID with the creation time. The creation time alone
// would not do (file system tunnelling gives a name re-created within
// seconds its predecessor's creation time), nor would the file index on
// FAT, which is a directory entry's position; there is no birth there,
// and trust falls back to the marker.
func identify(path string) (ident, error) {
	f, err := os.Open(path) // os.Open opens directories (FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return ident{}, err
	}
	defer f.Close()
	h := windows.Handle(f.Fd())
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return ident{}, err
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0 {
		return ident{}, fmt.Errorf("%s is not a directory", path)
	}
	id := ident{id: devIno(uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32|uint64(info.FileIndexLow))}
	var flags uint32
	if err := windows.GetVolumeInformationByHandle(h, nil, 0, nil, nil, &flags, nil, 0); err != nil || flags&windows.FILE_SUPPORTS_OPEN_BY_FILE_ID == 0 {
		return id, nil
	}
	created := int64(info.CreationTime.HighDateTime)<<32 | int64(info.CreationTime.LowDateTime)
	if created == 0 {
		return id, nil
	}
	var fid fileIDInfo
	fileID := fmt.Sprintf("%x", uint64(info.FileIndexHigh)<<32|uint64(info.FileIndexLow))
	if err := windows.GetFileInformationByHandleEx(h, windows.FileIdInfo, (*byte)(unsafe.Pointer(&fid)), uint32(unsafe.Sizeof(fid))); err == nil {
		fileID = fmt.Sprintf("%x", fid.FileID)
	}
	id.birth = fmt.Sprintf("%s@%d", fileID, created)
	return id, nil
}

// samePath compares real paths as Windows file systems do: ignoring case
// and a verbatim (\\?\) prefix ([windowsPathsEqual]).
func samePath(a, b string) bool { return windowsPathsEqual(a, b) }
