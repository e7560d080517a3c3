package egress

import (
	"fmt"
	"io"
	"os"
)

// readRegularFile reads the operator's file at path (a CA bundle, proxy
// credentials): a regular file (a symlink to one is followed) of at most
// limit bytes. It opens without blocking on a FIFO (openNoBlock) and judges
// the opened file, not the name. Errors name the file.
func readRegularFile(path string, limit int64) ([]byte, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err // *fs.PathError names the file
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

// openFile is os.OpenFile, for the platform files.
var openFile = os.OpenFile
