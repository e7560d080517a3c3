package search

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ocfetch/ocfetch/internal/rootfile"
	"github.com/ocfetch/ocfetch/internal/secretfile"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/refusal"
)

// The files of the search configuration, in the user's configuration
// directory (os.UserConfigDir()/ocfetch): never in a workspace, which a
// repository can ship.
const (
	// ConfigName is the configuration file:
	// {"schema_version": 1, "backend": "brave", "url": "…", "key_file": "search.key"}.
	ConfigName = "search.json"
	// DefaultKeyFile is the key file's name when the configuration names
	// none and the backend needs a key.
	DefaultKeyFile = secretfile.SearchKey
	// maxConfigBytes and maxKeyBytes bound the two files.
	maxConfigBytes = 16 << 10
	maxKeyBytes    = 4 << 10
)

// ErrConfig is wrapped by every error of the configuration: the file, the
// flags, the backend URL or the key file. Its messages name the file and
// the field, never the key.
var ErrConfig = errors.New("search configuration")

// ErrNotConfigured: no configuration file and no --backend.
var ErrNotConfigured = errors.New("no search backend is configured")

// Config is what selects and reaches a backend.
type Config struct {
	// Backend is "searxng", "brave" or "tavily".
	Backend string `json:"backend"`
	// URL is the SearXNG instance's base URL (required for searxng), or
	// another endpoint for brave and tavily ("" for theirs).
	URL string `json:"url,omitempty"`
	// KeyFile is the file holding the API key (brave, tavily): a plain
	// name is in the configuration directory, else an absolute path.
	// "" means DefaultKeyFile.
	KeyFile string `json:"key_file,omitempty"`
}

// LoadOptions say where the configuration is and what the flags override.
type LoadOptions struct {
	// Dir is the configuration directory. "" means rootfile.UserDir().
	Dir string
	// Flags override the file's fields where set (--backend,
	// --backend-url, --key-file). With Flags.Backend set no file is
	// needed.
	Flags Config
}

// Load reads the configuration (the file, then the flags over it) and
// builds its backend. The file is read fail-closed through securefile (a
// regular file, no symlink, at most 16 KiB, strict JSON: no unknown or
// duplicate key); the key file likewise (at most 4 KiB, one line, no
// byte order mark) and only if no one but its owner may read it: on Unix
// mode 0600 or 0400, on Windows a DACL granting no one else
// (secretfile.CheckPrivate).
// Errors wrap [ErrNotConfigured] or [ErrConfig] and name the file.
func Load(o *LoadOptions) (Backend, error) {
	if o == nil {
		o = &LoadOptions{}
	}
	dir := o.Dir
	if dir == "" {
		d, err := rootfile.UserDir()
		if err != nil {
			return nil, fmt.Errorf("%w: the configuration directory: %v", ErrConfig, err)
		}
		dir = d
	}
	var c Config
	path := filepath.Join(dir, ConfigName)
	data, err := rootfile.Dir{Path: dir}.Read(ConfigName, maxConfigBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist) && o.Flags.Backend != "":
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w (no %s)", ErrNotConfigured, path)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	default:
		if c, err = ParseConfig(data); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if o.Flags.Backend != "" {
		// A backend named by flag does not inherit another backend's URL
		// or key file from the file.
		if o.Flags.Backend != c.Backend {
			c = Config{}
		}
		c.Backend = o.Flags.Backend
	}
	if o.Flags.URL != "" {
		c.URL = o.Flags.URL
	}
	if o.Flags.KeyFile != "" {
		c.KeyFile = o.Flags.KeyFile
	}
	return c.build(dir)
}

func (c Config) build(dir string) (Backend, error) {
	switch c.Backend {
	case "searxng":
		if c.URL == "" {
			return nil, fmt.Errorf("%w: searxng needs the instance's url (--backend-url or \"url\")", ErrConfig)
		}
		return NewSearXNG(c.URL)
	case "brave", "tavily":
		key, err := readKey(dir, c.KeyFile)
		if err != nil {
			return nil, err
		}
		if c.Backend == "brave" {
			return NewBrave(c.URL, key)
		}
		return NewTavily(c.URL, key)
	}
	return nil, fmt.Errorf("%w: backend must be searxng, brave or tavily", ErrConfig)
}

// readKey reads the key file: name in dir, or an absolute path.
func readKey(dir, name string) (string, error) {
	if name == "" {
		name = DefaultKeyFile
	}
	path := name
	if !filepath.IsAbs(name) {
		if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return "", fmt.Errorf("%w: key_file must be a file name in %s or an absolute path", ErrConfig, dir)
		}
		path = filepath.Join(dir, name)
	}
	f, err := securefile.OpenRead(path)
	if err != nil {
		return "", fmt.Errorf("%w: the key file: %v", ErrConfig, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("%w: the key file %s: %v", ErrConfig, path, err)
	}
	if err := checkKeyFile(path, f, fi); err != nil {
		return "", fmt.Errorf("%w: %v", ErrConfig, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyBytes+1))
	if err != nil {
		return "", fmt.Errorf("%w: the key file %s cannot be read", ErrConfig, path)
	}
	if len(data) > maxKeyBytes {
		return "", fmt.Errorf("%w: the key file %s is larger than %d bytes", ErrConfig, path, maxKeyBytes)
	}
	if err := secretfile.CheckNoBOM(data); err != nil {
		return "", fmt.Errorf("%w: the key file %s %v", ErrConfig, path, err)
	}
	key := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	if strings.ContainsAny(key, "\r\n") {
		return "", fmt.Errorf("%w: the key file %s must hold one line, the key", ErrConfig, path)
	}
	return strings.TrimSpace(key), nil
}

var configDoc = strictjson.Walker{MaxDepth: 1, Keys: []string{"schema_version", "backend", "url", "key_file"}}

// ParseConfig decodes search.json strictly: one object of schema_version
// (1), backend, url and key_file, no other or repeated key. Errors wrap
// ErrConfig and name the field, never a value.
func ParseConfig(data []byte) (Config, error) {
	var c Config
	version := false
	err := configDoc.Walk(data, func(p strictjson.Path, v strictjson.Value) error {
		if len(p) == 0 {
			if v.Kind != strictjson.Object {
				return fmt.Errorf("%w: want one JSON object", ErrConfig)
			}
			return nil
		}
		key := p[0].Key
		if key == "schema_version" {
			if n, ok := strictjson.Int(v.Raw, 1, 1); !ok || n != 1 || v.Kind != strictjson.Number {
				return fmt.Errorf("%w: schema_version must be 1", ErrConfig)
			}
			version = true
			return nil
		}
		if v.Kind != strictjson.String {
			return fmt.Errorf("%w: %s must be a string", ErrConfig, key)
		}
		switch key {
		case "backend":
			c.Backend = v.Text()
		case "url":
			c.URL = v.Text()
		case "key_file":
			c.KeyFile = v.Text()
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrConfig) {
			return Config{}, err
		}
		var e *strictjson.Error
		if errors.As(err, &e) && (errors.Is(err, strictjson.ErrUnknownKey) || errors.Is(err, strictjson.ErrDuplicateKey)) {
			return Config{}, fmt.Errorf("%w: unknown or repeated field; the fields are schema_version, backend, url, key_file", ErrConfig)
		}
		if errors.Is(err, strictjson.ErrByteOrderMark) {
			return Config{}, fmt.Errorf("%w: %v", ErrConfig, err) // names the mark and the fix, no value
		}
		return Config{}, fmt.Errorf("%w: not valid JSON", ErrConfig)
	}
	if !version {
		return Config{}, fmt.Errorf("%w: schema_version is required (1)", ErrConfig)
	}
	if c.Backend == "" {
		return Config{}, fmt.Errorf("%w: backend is required (searxng, brave or tavily)", ErrConfig)
	}
	return c, nil
}

// Refusal turns an error of Load into the search_not_configured refusal
// front ends report, with a hint naming what to write.
func Refusal(err error) *refusal.Error {
	if errors.Is(err, ErrNotConfigured) {
		r := notConfigured()
		r.Message = err.Error()
		return r
	}
	return refusal.New(refusal.SearchNotConfigured, err.Error()).
		WithHint("fix " + ConfigName + " or the key file the message names (see README, Web search)")
}
