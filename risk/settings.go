package risk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// SettingsSchemaVersion is the only schema_version settings.json may carry.
const SettingsSchemaVersion = 1

// settingsHint tells the user how to repair a refused settings file.
const settingsHint = `write {"schema_version": 1, "risk_profile": "standard"} ` +
	`(profiles: ` + validNames + `), or delete the file to use standard`

// unusableHint tells the user how to repair a settings file that cannot
// be read as a file at all (a symlink there or at .oc_chat, a directory,
// too large): its content is not the problem.
func unusableHint(path string) string {
	return workspace.SmallFileHint(path) + `, holding {"schema_version": 1, "risk_profile": "standard"}, or delete it to use standard`
}

// Resolve returns the active risk profile for ws.
//
// An explicit value (the --profile flag; "" when unset) wins and must be a
// valid name: anything else is an *refusal.Error with code
// invalid_arguments naming the value. Otherwise <root>/.oc_chat/settings.json
// is read with [ReadSettings] on every call, and its profile returned.
//
// Resolve never writes the settings file.
func Resolve(ws workspace.Workspace, explicit string) (Profile, error) {
	if explicit != "" {
		return Parse(explicit)
	}
	s, err := ReadSettings(ws)
	if err != nil {
		return "", err
	}
	return s.Profile, nil
}

// Settings is what settings.json holds.
type Settings struct {
	// Profile is "risk_profile", [Standard] when absent.
	Profile Profile
	// UpstreamProxy is "upstream_proxy", the operator's HTTP proxy URL
	// (http://HOST:PORT), "" when absent. It is only checked to be a
	// non-empty string of printable ASCII here; the egress package parses
	// it (egress.ParseUpstreamProxy) and a bad value is refused there,
	// naming this file.
	UpstreamProxy string
	// UpstreamProxyAuthFile is "upstream_proxy_auth_file", the absolute
	// path of the file (one line user:pass) holding the credentials of
	// UpstreamProxy, "" when absent. It is the only source of credentials
	// for a proxy settings.json names: the --upstream-proxy-auth flag goes
	// with --upstream-proxy only. It is a grant of the workspace, as
	// UpstreamProxy is (both count only in a trusted workspace), and it is
	// refused without UpstreamProxy.
	UpstreamProxyAuthFile string
	// UpstreamProxyExclude is "upstream_proxy_exclude", the hosts dialled
	// directly instead of through UpstreamProxy (["*.corp.example",
	// "intranet.example.com"]), nil when absent. Each entry is only
	// checked to be a non-empty string of printable ASCII here (at most
	// 256 of them); the egress package parses them
	// (egress.ParseUpstreamExclude) and a bad one is refused there,
	// naming this file. Like upstream_proxy_auth_file it goes with
	// UpstreamProxy only, and is refused without it.
	UpstreamProxyExclude []string
}

// maxExcludeEntries bounds upstream_proxy_exclude (egress.MaxUpstreamExclude).
const maxExcludeEntries = 256

// ReadSettings reads <root>/.oc_chat/settings.json (through
// [workspace.ReadSmallFile]), fail-closed:
//
//   - a missing file means the zero Settings with Profile [Standard];
//   - a file that is not a regular file, is larger than 64 KiB, cannot be
//     read, is not valid UTF-8 or valid JSON, has trailing data, is not an
//     object, has a duplicate or unknown key, lacks "schema_version" or has
//     any value but the integer 1 there, whose "risk_profile" is not one
//     of the three names, or whose "upstream_proxy" is not a non-empty
//     string of printable ASCII, or whose "upstream_proxy_auth_file" is
//     not an absolute path (without control characters) or comes without
//     "upstream_proxy", or whose "upstream_proxy_exclude" is not a list of
//     at most 256 non-empty strings of printable ASCII or comes without
//     "upstream_proxy", is refused with code settings_invalid;
//     the message names the file and what is wrong, the hint how to fix it;
//   - "risk_profile", "upstream_proxy", "upstream_proxy_auth_file" and
//     "upstream_proxy_exclude" may be absent.
//
// ReadSettings never writes the settings file.
//
// The file is checked on every call and read again whenever it changed
// (see [securefile.Cache]): an edit is seen by the next call.
func ReadSettings(ws workspace.Workspace) (Settings, error) {
	s, err := settingsFiles.Load(ws.SettingsPath())
	return s.Settings, err
}

// ReadSettingsContext is [ReadSettings] within the call ctx carries
// ([securefile.WithCall]): the file is checked once per call, its
// directory's check shared with the workspace's other files. found
// reports whether settings.json exists (a missing file is the zero
// Settings with Profile [Standard], found false).
func ReadSettingsContext(ctx context.Context, ws workspace.Workspace) (s Settings, found bool, err error) {
	f, err := settingsFiles.LoadIn(securefile.CallFrom(ctx), ws.SettingsPath())
	return f.Settings, f.found, err
}

// settingsFile is one read of settings.json: what it holds, and whether
// it exists.
type settingsFile struct {
	Settings
	found bool
}

// settingsFiles holds the last parse of each settings.json read.
var settingsFiles = securefile.NewCache(workspace.MaxSmallFileSize, 256, decodeSettingsFile)

func decodeSettingsFile(path string, data []byte, fi fs.FileInfo, err error) (settingsFile, error) {
	s, derr := decodeSettings(path, data, fi, err)
	return settingsFile{Settings: s, found: !errors.Is(err, fs.ErrNotExist)}, derr
}

func decodeSettings(path string, data []byte, _ fs.FileInfo, err error) (Settings, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{Profile: Standard}, nil
	}
	if err != nil {
		// err names the file and the OS reason; it carries no request data.
		return Settings{}, refusal.Newf(refusal.SettingsInvalid, "settings file cannot be used: %v", err).
			WithHint(unusableHint(path)).Wrap(err)
	}
	s, err := parseSettings(data)
	if err != nil {
		return Settings{}, refusal.Newf(refusal.SettingsInvalid, "settings file %s: %v", path, err).
			WithHint(settingsHint).Wrap(err)
	}
	return s, nil
}

// settingsJSON is settings.json's structure: five known keys, and no
// nesting below the top-level object but upstream_proxy_exclude's list of
// strings.
var settingsJSON = strictjson.Walker{MaxDepth: 2, Keys: []string{"schema_version", "risk_profile", "upstream_proxy", "upstream_proxy_auth_file", "upstream_proxy_exclude"}}

// parseSettings checks settings.json strictly, in one pass
// ([strictjson.Walker]), so that a duplicate key, a key in the wrong case,
// 1.0 or "1" for the version, and trailing data are all seen and refused
// rather than smoothed over the way json.Unmarshal would. Each value is
// judged before the walk enters it, so nesting depth cannot exhaust
// anything.
func parseSettings(data []byte) (Settings, error) {
	var (
		haveVersion bool
		out         = Settings{Profile: Standard}
	)
	err := settingsJSON.Walk(data, func(p strictjson.Path, v strictjson.Value) error {
		switch {
		case len(p) == 0:
			if v.Kind != strictjson.Object {
				return fmt.Errorf("the top level is %s; want a JSON object", v.Kind)
			}
		case p[0].Key == "schema_version":
			switch {
			case v.Kind != strictjson.Number:
				return fmt.Errorf("schema_version is %s; want the integer %d", v.Kind, SettingsSchemaVersion)
			case !strictjson.IsInt(v.Raw):
				return fmt.Errorf("schema_version %s is not an integer; want %d", safetext.Short(string(v.Raw)), SettingsSchemaVersion)
			}
			if _, ok := strictjson.Int(v.Raw, SettingsSchemaVersion, SettingsSchemaVersion); !ok {
				return fmt.Errorf("schema_version %s is not supported; want %d", safetext.Short(string(v.Raw)), SettingsSchemaVersion)
			}
			haveVersion = true
		case p[0].Key == "risk_profile":
			if v.Kind != strictjson.String {
				return fmt.Errorf("risk_profile is %s; want one of %s", v.Kind, validNames)
			}
			var err error
			out.Profile, err = mustBeProfile(v.Text())
			return err
		case p[0].Key == "upstream_proxy":
			if v.Kind != strictjson.String {
				return fmt.Errorf("upstream_proxy is %s; want a string http://HOST:PORT", v.Kind)
			}
			u := v.Text()
			if u == "" || !printableASCII(u) {
				return fmt.Errorf("upstream_proxy is empty or not printable ASCII; want http://HOST:PORT")
			}
			out.UpstreamProxy = u
		case p[0].Key == "upstream_proxy_exclude" && len(p) == 1:
			if v.Kind != strictjson.Array {
				return fmt.Errorf("upstream_proxy_exclude is %s; want a list of hosts, [\"*.corp.example\", \"intranet.example.com\"]", v.Kind)
			}
			out.UpstreamProxyExclude = []string{}
		case p[0].Key == "upstream_proxy_exclude":
			i := p[1].Index
			if i >= maxExcludeEntries {
				return fmt.Errorf("upstream_proxy_exclude has more than %d entries", maxExcludeEntries)
			}
			if v.Kind != strictjson.String {
				return fmt.Errorf("upstream_proxy_exclude[%d] is %s; want a host (intranet.example.com) or *.domain", i, v.Kind)
			}
			h := v.Text()
			if h == "" || !printableASCII(h) {
				return fmt.Errorf("upstream_proxy_exclude[%d] is empty or not printable ASCII; want a host (intranet.example.com) or *.domain", i)
			}
			out.UpstreamProxyExclude = append(out.UpstreamProxyExclude, h)
		case p[0].Key == "upstream_proxy_auth_file":
			if v.Kind != strictjson.String {
				return fmt.Errorf("upstream_proxy_auth_file is %s; want the absolute path of a file holding user:pass", v.Kind)
			}
			f := v.Text()
			if !filepath.IsAbs(f) || strings.ContainsFunc(f, unicode.IsControl) {
				return fmt.Errorf("upstream_proxy_auth_file %s is not an absolute path; want the absolute path of a file holding user:pass", safetext.Short(f))
			}
			out.UpstreamProxyAuthFile = f
		}
		return nil
	})
	if err != nil {
		return Settings{}, err
	}
	if !haveVersion {
		return Settings{}, fmt.Errorf("schema_version is missing; want %d", SettingsSchemaVersion)
	}
	if out.UpstreamProxyExclude != nil && out.UpstreamProxy == "" {
		return Settings{}, fmt.Errorf("upstream_proxy_exclude names hosts to dial without the upstream proxy, but upstream_proxy names no proxy; want both or neither")
	}
	if out.UpstreamProxyAuthFile != "" && out.UpstreamProxy == "" {
		return Settings{}, fmt.Errorf("upstream_proxy_auth_file names credentials, but upstream_proxy names no proxy; want both or neither")
	}
	return out, nil
}

// printableASCII reports whether s is printable ASCII (no controls, no
// spaces), as a URL is.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
