package risk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ocfetch/ocfetch/safetext"
	"io/fs"
	"slices"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
)

// WriteProfile sets "risk_profile" in the workspace's settings.json to p
// and returns the profile the file named before ([Standard] when it was
// missing or named none). It is the one writer of settings.json, for
// `ocfetch profile set`; tools never call it.
//
// The cycle is locked (settings.json.lock) and the file replaced
// atomically. An existing file must be valid ([Resolve]'s rules): a
// malformed one is refused with settings_invalid and left alone. Its other
// members are kept as they are, "schema_version" first, the rest in key
// order. An invalid p is invalid_arguments.
func WriteProfile(ctx context.Context, ws workspace.Workspace, p Profile) (Profile, error) {
	if !p.Valid() {
		return "", refusal.Newf(refusal.InvalidArguments, "risk profile %q is not one of %s", safetext.Short(string(p)), validNames)
	}
	path := ws.SettingsPath()
	unlock, err := workspace.LockFile(ctx, path)
	if err != nil {
		return "", fmt.Errorf("settings: %w", err)
	}
	defer unlock()
	members := map[string]json.RawMessage{}
	previous := Standard
	data, err := workspace.ReadSmallFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", refusal.Newf(refusal.SettingsInvalid, "settings file cannot be used: %v", err).WithHint(unusableHint(path)).Wrap(err)
	default:
		settings, err := parseSettings(data)
		if err != nil {
			return "", refusal.Newf(refusal.SettingsInvalid, "settings file %s: %v; nothing was written", path, err).
				WithHint(settingsHint).Wrap(err)
		}
		previous = settings.Profile
		if err := json.Unmarshal(data, &members); err != nil { // parseSettings checked it strictly
			return "", fmt.Errorf("settings file %s: %w", path, err)
		}
	}
	members["schema_version"] = json.RawMessage(fmt.Sprint(SettingsSchemaVersion))
	members["risk_profile"], _ = json.Marshal(string(p))
	if err := workspace.WriteFileAtomic(path, encodeSettings(members), 0o644); err != nil {
		return "", fmt.Errorf("settings: save: %w", err)
	}
	return previous, nil
}

// encodeSettings writes one member a line, schema_version first.
func encodeSettings(members map[string]json.RawMessage) []byte {
	keys := make([]string, 0, len(members))
	for k := range members {
		if k != "schema_version" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = append([]string{"schema_version"}, keys...)
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range keys {
		kq, _ := json.Marshal(k)
		var v bytes.Buffer
		if err := json.Compact(&v, members[k]); err != nil {
			v.Reset()
			v.Write(members[k])
		}
		fmt.Fprintf(&b, "  %s: %s", kq, v.Bytes())
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes()
}
