package risk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
)

// SettingsSchemaVersion is the only schema_version settings.json may carry.
const SettingsSchemaVersion = 1

// settingsHint tells the user how to repair a refused settings file.
const settingsHint = `write {"schema_version": 1, "risk_profile": "standard"} ` +
	`(profiles: ` + validNames + `), or delete the file to use standard`

// Resolve returns the active risk profile for ws.
//
// An explicit value (the --profile flag; "" when unset) wins and must be a
// valid name: anything else is an *refusal.Error with code
// invalid_arguments naming the value. Otherwise <root>/.oc_chat/settings.json
// is read (through [workspace.ReadSmallFile]) on every call:
//
//   - a missing file means [Standard];
//   - a file that is not a regular file, is larger than 64 KiB, cannot be
//     read, is not valid UTF-8 or valid JSON, has trailing data, is not an
//     object, has a duplicate or unknown key, lacks "schema_version" or has
//     any value but the integer 1 there, or whose "risk_profile" is not one
//     of the three names is refused with code settings_invalid; the message
//     names the file and what is wrong, the hint how to fix it;
//   - "risk_profile" may be absent: the profile is then [Standard].
//
// Resolve never writes the settings file.
func Resolve(ws workspace.Workspace, explicit string) (Profile, error) {
	if explicit != "" {
		return Parse(explicit)
	}
	path := ws.SettingsPath()
	data, err := workspace.ReadSmallFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Standard, nil
	}
	if err != nil {
		// err names the file and the OS reason; it carries no request data.
		return "", refusal.Newf(refusal.SettingsInvalid, "settings file cannot be used: %v", err).
			WithHint(settingsHint).Wrap(err)
	}
	p, err := parseSettings(data)
	if err != nil {
		return "", refusal.Newf(refusal.SettingsInvalid, "settings file %s: %v", path, err).
			WithHint(settingsHint).Wrap(err)
	}
	return p, nil
}

// parseSettings decodes settings.json strictly, token by token, so that a
// duplicate key, a key in the wrong case, 1.0 or "1" for the version, and
// trailing data are all seen and refused rather than smoothed over the way
// json.Unmarshal would. It never descends into nested values, so nesting
// depth cannot exhaust anything.
func parseSettings(data []byte) (Profile, error) {
	if !utf8.Valid(data) {
		return "", errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err == io.EOF {
		return "", errors.New("the file is empty; want a JSON object")
	}
	if err != nil {
		return "", syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return "", fmt.Errorf("the top level is %s; want a JSON object", kindOf(tok))
	}
	var (
		seen        = make(map[string]bool, 2)
		haveVersion bool
		profile     = Standard
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", syntaxError(err)
		}
		key, ok := tok.(string)
		if !ok { // unreachable: the decoder only yields string keys
			return "", fmt.Errorf("object key is %s", kindOf(tok))
		}
		if seen[key] {
			return "", fmt.Errorf("duplicate key %q", sanitize(key))
		}
		seen[key] = true
		tok, err = dec.Token()
		if err != nil {
			return "", syntaxError(err)
		}
		switch key {
		case "schema_version":
			n, ok := tok.(json.Number)
			if !ok {
				return "", fmt.Errorf("schema_version is %s; want the integer %d", kindOf(tok), SettingsSchemaVersion)
			}
			if !isDecimalInteger(string(n)) {
				return "", fmt.Errorf("schema_version %s is not an integer; want %d", sanitize(string(n)), SettingsSchemaVersion)
			}
			if string(n) != "1" {
				return "", fmt.Errorf("schema_version %s is not supported; want %d", sanitize(string(n)), SettingsSchemaVersion)
			}
			haveVersion = true
		case "risk_profile":
			s, ok := tok.(string)
			if !ok {
				return "", fmt.Errorf("risk_profile is %s; want one of %s", kindOf(tok), validNames)
			}
			if profile, err = mustBeProfile(s); err != nil {
				return "", err
			}
		default:
			return "", fmt.Errorf("unknown key %q (known: schema_version, risk_profile)", sanitize(key))
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return "", syntaxError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New("trailing data after the JSON object")
	}
	if !haveVersion {
		return "", fmt.Errorf("schema_version is missing; want %d", SettingsSchemaVersion)
	}
	return profile, nil
}

// isDecimalInteger reports whether a JSON number literal is a plain integer:
// no fraction, no exponent (1.0 and 1e0 are refused, not rounded).
func isDecimalInteger(lit string) bool {
	if lit == "" {
		return false
	}
	for i := 0; i < len(lit); i++ {
		if (lit[i] < '0' || lit[i] > '9') && !(i == 0 && lit[i] == '-') {
			return false
		}
	}
	return lit != "-"
}

// syntaxError describes a decoder error without the decoder's own prefix.
func syntaxError(err error) error {
	var se *json.SyntaxError
	switch {
	case err == io.EOF, errors.Is(err, io.ErrUnexpectedEOF):
		// Inside the object the decoder reports a cut-off file as io.EOF.
		return errors.New("invalid JSON: unexpected end of file")
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// kindOf names the JSON kind of a decoder token.
func kindOf(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return "an object"
		case '[':
			return "a list"
		}
		return fmt.Sprintf("%q", string(t))
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", tok)
}
