package managed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"

	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/internal/strictjson"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/safetext"
)

// FileName is the policy file's name in its directory.
const FileName = "policy.json"

// SchemaVersion is the only schema_version the file may carry.
const SchemaVersion = 1

// MaxFileSize bounds the policy file, as rules.json is bounded.
const MaxFileSize = rules.MaxFileSize

// Policy is a loaded managed policy. The zero value is "no managed
// policy": it restricts nothing. Every field is stated so that its zero
// value changes nothing; a present file's defaults are filled in by
// [Parse] (max_profile "standard", allow_once true).
type Policy struct {
	// File is the policy file read; "" when there is none.
	File string
	// Rules are the managed rules; nil when none. A managed deny beats
	// every other layer, and --yes.
	Rules *rules.Set
	// MaxProfile caps the profile ("" = no cap): with "standard" (the
	// default of a present file) there is no local mode whatever the
	// workspace or --profile says.
	MaxProfile risk.Profile
	// ManagedRulesOnly: only the managed allow rules admit anything, and
	// nobody is asked.
	ManagedRulesOnly bool
	// NoAllowOnce ("allow_once": false) forbids --yes and the once and
	// always answers.
	NoAllowOnce bool
	// RequireSandbox forbids `ocfetch run --no-sandbox`.
	RequireSandbox bool
	// AuditExport is the OTLP/HTTP endpoint of the organisation's
	// OpenTelemetry collector that every audit line is also sent to
	// (package auditexport); "" for none. It takes precedence over the
	// user's audit_export.json.
	AuditExport string
	// NoPublicHTTPS ("allow_public_https": false) makes the open-web rule
	// ("allow *:443", `ocfetch rules allow --public-https`) of a workspace
	// or the user count for nothing. The managed policy's own rules are
	// the administrator's and still count.
	NoPublicHTTPS bool
	// NoTrustFlag ("allow_trust_flag": false) refuses `--trust-root` and
	// OCFETCH_TRUST_ROOT: a workspace counts as trusted only through the
	// user's trust store (`ocfetch trust`), never through a flag an
	// operator passes to one process.
	NoTrustFlag bool
}

// Present reports whether a managed policy file was read.
func (p Policy) Present() bool { return p.File != "" }

// Cap returns profile lowered to p.MaxProfile when it is above it. A
// profile that is not one of the three (the zero Profile of a caller that
// did not resolve one, a misspelt name) is not known to be below the cap,
// so it is lowered to p.MaxProfile too; with no cap it is returned as it
// is.
func (p Policy) Cap(profile risk.Profile) risk.Profile {
	if p.MaxProfile != "" && (!profile.Valid() || rank(profile) > rank(p.MaxProfile)) {
		return p.MaxProfile
	}
	return profile
}

// Allows reports whether profile is within p.MaxProfile (a profile that is
// not one of the three is not, under a cap).
func (p Policy) Allows(profile risk.Profile) bool { return p.Cap(profile) == profile }

func rank(p risk.Profile) int { return slices.Index(risk.Profiles, p) }

// Options configure [Load]. A nil *Options is the zero value.
type Options struct {
	// Path is the policy file. "" means [DefaultPath]: only tests set it.
	Path string
	// Administrator reports whether owner may own and write the policy
	// file and its directory. owner is the decimal uid on Unix and the
	// string SID ("S-1-5-32-544") on Windows. nil means the platform's
	// administrators: uid 0 on Unix; SYSTEM, Administrators and
	// TrustedInstaller on Windows.
	Administrator func(owner string) bool
}

// Load reads the managed policy. A missing file (or directory) is the zero
// Policy and no error. Otherwise the file must be a regular file (not a
// symlink), of at most [MaxFileSize], that only administrators can write
// (see [Options.Administrator]: on Unix the file and its directory are
// owned by one and not group- or world-writable; on Windows the owner of
// each is one and no allow entry of their DACLs grants a write, delete or
// permission right to anyone else), and must parse ([Parse]). Anything else
// is an *refusal.Error with code managed_policy_invalid that names the
// file: the caller must refuse every call.
//
// The file is checked on every call (one lstat of its directory, one
// fstatat of the file under the directory's open handle) and read again
// whenever it changed (see [securefile.Cache]): an edit, or a removal, is
// seen by the next call. The owner check runs on every call.
func Load(opts *Options) (Policy, error) { return load(nil, opts) }

// LoadContext is [Load] within the call ctx carries
// ([securefile.WithCall]): the policy file and its directory are checked
// once per call, the directory's check shared with the owner check.
func LoadContext(ctx context.Context, opts *Options) (Policy, error) {
	return load(securefile.CallFrom(ctx), opts)
}

func load(call *securefile.Call, opts *Options) (Policy, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	path := o.Path
	if path == "" {
		var err error
		if path, err = DefaultPath(); err != nil {
			return Policy{}, refusal.Newf(refusal.ManagedPolicyInvalid, "managed policy: %v", err).Wrap(err)
		}
	}
	admin := o.Administrator
	if admin == nil {
		admin = isAdministrator
	}
	s, dirOwner, err := policies.LoadOwnedIn(call, path) // regular file, no symlink, bounded
	if err != nil {
		return Policy{}, err
	}
	if !s.present {
		return Policy{}, nil
	}
	if err := checkOwner(path, s.fi, dirOwner, admin); err != nil {
		return Policy{}, invalid(path, "%s: %v", path, err).Wrap(err)
	}
	if s.err != nil {
		return Policy{}, invalid(path, "%s: %v", path, s.err).Wrap(s.err)
	}
	return s.p, nil
}

// snapshot is what one read of the policy file found: the owner check,
// which depends on the caller's Administrator, runs on every Load.
type snapshot struct {
	present bool
	fi      fs.FileInfo
	p       Policy
	err     error // Parse's
}

// policies holds the last read of each policy file (see [securefile.Cache]).
var policies = securefile.NewCache(MaxFileSize, 16, decodePolicy)

func decodePolicy(path string, data []byte, fi fs.FileInfo, err error) (snapshot, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return snapshot{}, nil
	}
	if err != nil {
		return snapshot{}, invalid(path, "%v", err).Wrap(err)
	}
	p, err := Parse(data)
	p.File = path
	return snapshot{present: true, fi: fi, p: p, err: err}, nil
}

func invalid(path, format string, args ...any) *refusal.Error {
	return refusal.Newf(refusal.ManagedPolicyInvalid, "managed policy "+format+"; every call is refused until it is fixed", args...).
		WithHints("ask your administrator to fix "+path+" (owned by an administrator, writable by administrators only, valid JSON as in the README's \"For administrators\"), or to remove it",
			"only an administrator can fix or remove the managed policy, and every call is refused until then: tell the user")
}

// policyJSON is the file's structure: the top-level keys and the rule
// keys of rules.json, which needs a depth of 4.
var policyJSON = strictjson.Walker{
	MaxDepth: 8,
	Keys: []string{
		"schema_version", "rules", "max_profile", "managed_rules_only", "allow_once", "require_sandbox", "allow_public_https",
		"allow_trust_flag", "audit_export", "capability", "target", "decision", "schema", "host", "port",
	},
}

// Parse reads a policy document strictly: valid UTF-8 JSON, one object, no
// trailing data, no duplicate or unknown keys; "schema_version", if
// present, the integer 1; "rules" an array of rules exactly as in
// rules.json (a wildcard over a public suffix refused); "max_profile" one
// of strict, standard, permissive; the switches booleans. Absent
// fields take their defaults. The returned Policy has no File.
func Parse(data []byte) (Policy, error) {
	p := Policy{MaxProfile: risk.Standard}
	var rulesStart = -1
	err := policyJSON.Walk(data, func(path strictjson.Path, v strictjson.Value) error {
		if len(path) == 0 {
			if v.Kind != strictjson.Object {
				return fmt.Errorf("the top level is %s; want an object", v.Kind)
			}
			return nil
		}
		if len(path) > 1 {
			return nil // inside "rules": rules.DecodeRules judges it
		}
		key := path[0].Key
		switch key {
		case "schema_version":
			if _, ok := strictjson.Int(v.Raw, SchemaVersion, SchemaVersion); v.Kind != strictjson.Number || !ok {
				return fmt.Errorf("schema_version %s is not supported; want %d", strictjson.Describe(v), SchemaVersion)
			}
		case "rules":
			if v.Kind != strictjson.Array {
				return fmt.Errorf("rules is %s; want a list of rules as in rules.json", v.Kind)
			}
			rulesStart = v.Offset
		case "max_profile":
			if v.Kind != strictjson.String || !risk.Profile(v.Text()).Valid() {
				return fmt.Errorf("max_profile %s is not one of strict, standard, permissive", strictjson.Describe(v))
			}
			p.MaxProfile = risk.Profile(v.Text())
		case "audit_export":
			var u *url.URL
			var err error = errors.New("not a string")
			if v.Kind == strictjson.String {
				u, err = url.Parse(v.Text())
			}
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
				u.User != nil || u.RawQuery != "" || u.Fragment != "" {
				return fmt.Errorf("audit_export %s is not an http(s) URL of a collector without credentials, query or fragment", strictjson.Describe(v))
			}
			p.AuditExport = v.Text()
		case "managed_rules_only", "allow_once", "require_sandbox", "allow_public_https", "allow_trust_flag":
			if v.Kind != strictjson.Bool {
				return fmt.Errorf("%s is %s; want true or false", key, v.Kind)
			}
			b := v.Raw[0] == 't'
			switch key {
			case "managed_rules_only":
				p.ManagedRulesOnly = b
			case "allow_once":
				p.NoAllowOnce = !b
			case "allow_public_https":
				p.NoPublicHTTPS = !b
			case "allow_trust_flag":
				p.NoTrustFlag = !b
			default:
				p.RequireSandbox = b
			}
		default:
			return fmt.Errorf("%q belongs inside a rule, not at the top level", key)
		}
		return nil
	})
	if err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && se.Err == strictjson.ErrUnknownKey {
			return Policy{}, fmt.Errorf("unknown field %q", safetext.Short(se.Key))
		}
		return Policy{}, err
	}
	if rulesStart >= 0 {
		rs, err := rules.DecodeRules(strictjson.Span(data, rulesStart))
		if err != nil {
			return Policy{}, fmt.Errorf("rules: %v", err)
		}
		set, err := rules.NewSet(rs...)
		if err != nil {
			return Policy{}, fmt.Errorf("rules: %v", err)
		}
		p.Rules = set
	}
	return p, nil
}
