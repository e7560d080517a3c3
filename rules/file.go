package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"strconv"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// SchemaVersion is the rules.json schema this package reads and writes.
const SchemaVersion = 1

// MaxFileSize bounds rules.json: 2 MiB, about 18,000 rules. It is the one
// workspace file allowed past the 64 KiB of the others (the audit log
// aside), because a team's store of approved hosts grows; it is still
// bounded so that a hostile file cannot exhaust memory.
const MaxFileSize = 2 << 20

// Load reads <root>/.oc_chat/rules.json. A missing file is an empty set.
//
// Load fails closed: a file that is not a regular file, is larger than
// [MaxFileSize], cannot be read, or is not exactly a schema 1 rules document is
// a *refusal.Error with code rules_invalid that names the file and says
// what is wrong. Exactly means: valid UTF-8 JSON, one object, no trailing
// data, no duplicate or unknown keys (keys are case-sensitive),
// "schema_version": 1, a "rules" array whose every rule has a known
// capability ("network"), target schema ("network.target.v1"), a host that
// parses as an exact host or "*.domain", a port 1–65535 written as a JSON
// integer, and a decision "allow" or "deny". Hosts are accepted in any form
// that normalises ("Bücher.Example." loads as "xn--bcher-kva.example").
//
// The file is checked on every call and read again whenever it changed
// (see [securefile.Cache]): an edit is seen by the next call.
func Load(ws workspace.Workspace) (*Set, error) {
	return workspaceRules.Load(RulesPath(ws))
}

// RulesPath is ws.RulesPath(): the path every call reads.
func RulesPath(ws workspace.Workspace) string { return ws.RulesPath() }

// LoadContext is [Load] within the call ctx carries
// ([securefile.WithCall]): the file is checked once per call, its
// directory's check shared with the workspace's other files.
func LoadContext(ctx context.Context, ws workspace.Workspace) (*Set, error) {
	return workspaceRules.LoadIn(securefile.CallFrom(ctx), RulesPath(ws))
}

// LoadPathContext is [LoadContext] for path, the workspace's [RulesPath]
// the caller already holds (Decide looks it up once per decision).
func LoadPathContext(ctx context.Context, path string) (*Set, error) {
	return workspaceRules.LoadIn(securefile.CallFrom(ctx), path)
}

// workspaceRules and userRules hold the last parse of each rules file
// read, validated by a stat on every call. A Set is never modified, so
// callers share it.
var (
	workspaceRules = securefile.NewCache(MaxFileSize, 256, decodeWorkspaceRules)
	userRules      = securefile.NewCache(MaxFileSize, 16, decodeUserRules)
)

// decodeWorkspaceRules is Load's answer to what reading the file returned.
func decodeWorkspaceRules(path string, data []byte, _ fs.FileInfo, err error) (*Set, error) {
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			// The name exists but does not lead to a file: a dangling
			// symlink. An empty set would silently drop deny rules.
			return nil, invalid(path, "is a symlink to a file that does not exist").Wrap(err)
		}
		return &Set{}, nil
	}
	if err != nil {
		return nil, refusal.Newf(refusal.RulesInvalid, "rules file %v", err).
			WithHint(fmt.Sprintf("make %s a regular file of at most %d KiB, or remove it", path, MaxFileSize>>10)).Wrap(err)
	}
	return parse(path, data)
}

// The on-disk shapes. Pointers and raw messages tell a missing or null
// member from a zero one.
type fileV1 struct {
	SchemaVersion json.RawMessage `json:"schema_version"`
	Rules         *[]fileRule     `json:"rules"`
}

type fileRule struct {
	Capability *string     `json:"capability"`
	Target     *fileTarget `json:"target"`
	Decision   *string     `json:"decision"`
}

type fileTarget struct {
	Schema *string         `json:"schema"`
	Host   *string         `json:"host"`
	Port   json.RawMessage `json:"port"`
}

// rulesJSON is the structure of rules.json. encoding/json matches keys
// case-insensitively (and folds 'ſ' to 's'); the Walker requires each key
// to be exactly one of the schema's (no two of which fold together) and
// unique in its object, while DisallowUnknownFields checks it is at the
// right level. The schema needs a depth of 4.
var rulesJSON = strictjson.Walker{
	MaxDepth: 8,
	Keys: []string{
		"schema_version", "rules",
		"capability", "target", "decision",
		"schema", "host", "port",
	},
}

// parse decodes a rules.json document read from path.
func parse(path string, data []byte) (*Set, error) {
	if err := rulesJSON.Walk(data, nil); err != nil {
		return nil, invalid(path, "%s", describeJSONError(err))
	}
	var f fileV1
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, invalid(path, "%s", describeJSONError(err))
	}
	switch {
	case f.SchemaVersion == nil:
		return nil, invalid(path, "schema_version is missing (want %d)", SchemaVersion)
	case string(f.SchemaVersion) != strconv.Itoa(SchemaVersion):
		return nil, invalid(path, "schema_version %s is not supported (want %d)", safetext.Short(string(f.SchemaVersion)), SchemaVersion)
	case f.Rules == nil:
		return nil, invalid(path, "\"rules\" is missing or null (want an array, [] for none)")
	}
	rules := make([]Rule, 0, len(*f.Rules))
	for i, fr := range *f.Rules {
		r, err := fr.rule()
		if err != nil {
			return nil, invalid(path, "rule %d: %v", i+1, err)
		}
		rules = append(rules, r)
	}
	s, err := NewSet(rules...)
	if err != nil {
		return nil, invalid(path, "%v", err)
	}
	return s, nil
}

// rule checks presence and JSON types; NewSet checks values.
func (fr fileRule) rule() (Rule, error) {
	switch {
	case fr.Capability == nil:
		return Rule{}, errors.New("capability is missing")
	case fr.Target == nil:
		return Rule{}, errors.New("target is missing")
	case fr.Target.Schema == nil:
		return Rule{}, errors.New("target.schema is missing")
	case fr.Target.Host == nil:
		return Rule{}, errors.New("target.host is missing")
	case fr.Target.Port == nil || string(fr.Target.Port) == "null":
		return Rule{}, errors.New("target.port is missing")
	case fr.Decision == nil:
		return Rule{}, errors.New("decision is missing")
	}
	// A port is a JSON integer 1–65535: not a string, not 443.0, not 4.43e2.
	port, ok := strictjson.Int(fr.Target.Port, 1, 65535)
	if !ok {
		return Rule{}, fmt.Errorf("target.port %s is not an integer 1–65535", safetext.Short(string(fr.Target.Port)))
	}
	return Rule{
		Capability: capability.Kind(*fr.Capability),
		Target:     RuleTarget{Schema: *fr.Target.Schema, Host: *fr.Target.Host, Port: uint16(port)},
		Decision:   Decision(*fr.Decision),
	}, nil
}

// describeJSONError words the Walker's and the decoder's errors for the
// rules file. After a successful Walk the decoder can only object to a
// value's type or a known key at the wrong level.
func describeJSONError(err error) string {
	if errors.Is(err, strictjson.ErrEmpty) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "empty or truncated JSON"
	}
	var se *strictjson.Error
	if errors.As(err, &se) {
		switch se.Err {
		case strictjson.ErrDuplicateKey:
			return fmt.Sprintf("duplicate field %q", se.Key) // a known key
		case strictjson.ErrUnknownKey:
			return fmt.Sprintf("unknown field %q", safetext.Short(se.Key))
		}
		return se.Error()
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the document"
		}
		return fmt.Sprintf("%s: a JSON %s where %s is expected", field, te.Value, jsonKind(te.Type))
	}
	// A known key at the wrong level: encoding/json's text quotes only the key.
	return err.Error()
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		if t == reflect.TypeFor[json.RawMessage]() {
			return "a value"
		}
		return "an array"
	case reflect.Struct:
		return "an object"
	}
	return t.Kind().String()
}

// encode renders rules (normalised, sorted) as rules.json: indented, one
// rule a line so that a diff shows one line per rule change, and a trailing
// newline.
func encode(rules []Rule) []byte {
	q := strictjson.Quote
	return strictjson.EncodeList(SchemaVersion, "rules", rules, func(b *bytes.Buffer, r Rule) {
		fmt.Fprintf(b, "{\"capability\": %s, \"target\": {\"schema\": %s, \"host\": %s, \"port\": %d}, \"decision\": %s}",
			q(string(r.Capability)), q(r.Target.Schema), q(r.Target.Host), r.Target.Port, q(string(r.Decision)))
	})
}
