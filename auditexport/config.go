package auditexport

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/ocfetch/ocfetch/internal/rootfile"
	"github.com/ocfetch/ocfetch/internal/strictjson"
)

// ConfigName is the user's export configuration in ocfetch's configuration
// directory (os.UserConfigDir()/ocfetch):
// {"schema_version": 1, "endpoint": "http://127.0.0.1:4318"}. The managed
// policy's "audit_export" takes precedence over it.
const ConfigName = "audit_export.json"

// ErrConfig is wrapped by every error of the configuration file.
var ErrConfig = errors.New("audit export configuration")

var configDoc = strictjson.Walker{MaxDepth: 1, Keys: []string{"schema_version", "endpoint"}}

// ParseConfig decodes the configuration strictly and returns its endpoint,
// checked by ParseEndpoint.
func ParseConfig(data []byte) (string, error) {
	var endpoint string
	version := false
	err := configDoc.Walk(data, func(p strictjson.Path, v strictjson.Value) error {
		switch {
		case len(p) == 0 && v.Kind != strictjson.Object:
			return fmt.Errorf("%w: want one JSON object", ErrConfig)
		case len(p) == 0:
			return nil
		case p[0].Key == "schema_version":
			if _, ok := strictjson.Int(v.Raw, 1, 1); !ok || v.Kind != strictjson.Number {
				return fmt.Errorf("%w: schema_version must be 1", ErrConfig)
			}
			version = true
		case v.Kind != strictjson.String:
			return fmt.Errorf("%w: endpoint must be a string", ErrConfig)
		default:
			endpoint = v.Text()
		}
		return nil
	})
	switch {
	case errors.Is(err, ErrConfig):
		return "", err
	case errors.Is(err, strictjson.ErrByteOrderMark):
		return "", fmt.Errorf("%w: %v", ErrConfig, err) // names the mark and the fix, nothing of the file
	case err != nil:
		return "", fmt.Errorf("%w: not valid JSON, or a field other than schema_version and endpoint", ErrConfig)
	case !version:
		return "", fmt.Errorf("%w: schema_version is required (1)", ErrConfig)
	}
	if _, err := ParseEndpoint(endpoint); err != nil {
		return "", fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return endpoint, nil
}

// LoadConfig reads ConfigName in dir ("" is rootfile.UserDir()) through
// securefile's checks (regular file, no symlink, at most 16 KiB). A
// missing file is "" and no error. Errors name the file.
func LoadConfig(dir string) (string, error) {
	if dir == "" {
		d, err := rootfile.UserDir()
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrConfig, err)
		}
		dir = d
	}
	d := rootfile.Dir{Path: dir}
	data, err := d.Read(ConfigName, 16<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrConfig, err)
	}
	endpoint, err := ParseConfig(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", d.Join(ConfigName), err)
	}
	return endpoint, nil
}
