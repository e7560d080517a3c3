package policy

import (
	"github.com/ocfetch/ocfetch/managed"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/rules"
	"github.com/ocfetch/ocfetch/trust"
)

// Layers locate the files of the layers around the workspace (issue 12):
// the administrator's managed policy, the user's trust store and the
// user's own rules. [Decide] reads each of them on every call (seed 000: no
// caching), and only the trust store lazily, when a workspace grant is about
// to count.
//
// A nil *Layers, and every nil field, is the platform's place:
// managed.DefaultPath with the platform's administrators,
// os.UserConfigDir()/ocfetch/trust.json and os.UserConfigDir()/ocfetch/
// rules.json. No environment variable of ocfetch moves them; tests and
// embedders set the fields.
type Layers struct {
	// Managed locates the managed policy (managed.Load's options).
	Managed *managed.Options
	// Trust is the user's trust store.
	Trust *trust.Store
	// User is the user's rules file.
	User *rules.Location
}

// TrustStore returns l.Trust, else the platform's store. A nil l is the
// platform's places.
func (l *Layers) TrustStore() (*trust.Store, error) {
	if l != nil && l.Trust != nil {
		return l.Trust, nil
	}
	return trust.Open(nil)
}

// UserRules returns l.User, else the platform's user rules file.
func (l *Layers) UserRules() (rules.Location, error) {
	if l != nil && l.User != nil {
		return *l.User, nil
	}
	loc, err := rules.UserLocation()
	if err != nil {
		return loc, refusal.Newf(refusal.RulesInvalid, "user rules: %v", err).
			WithHint("set HOME (or, on Windows, AppData) so that ocfetch can find your configuration directory").Wrap(err)
	}
	return loc, nil
}

// ManagedOptions returns l.Managed (nil: the platform's file and
// administrators).
func (l *Layers) ManagedOptions() *managed.Options {
	if l == nil {
		return nil
	}
	return l.Managed
}

// ManagedPath returns the managed policy file l names, else the
// platform's ("" when none can be determined).
func (l *Layers) ManagedPath() string {
	if o := l.ManagedOptions(); o != nil && o.Path != "" {
		return o.Path
	}
	p, _ := managed.DefaultPath()
	return p
}

// LoadManaged reads the managed policy now: the zero Policy when there is
// none, managed_policy_invalid naming the file when it is malformed (the
// caller refuses every call).
func (l *Layers) LoadManaged() (managed.Policy, error) {
	return managed.Load(l.ManagedOptions())
}
