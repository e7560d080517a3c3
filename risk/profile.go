package risk

import (
	"errors"
	"fmt"

	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/safetext"
)

// Profile is a risk profile. Its zero value is not a valid profile: use
// [Parse] or [Resolve] to obtain one.
type Profile string

// The risk profiles, from the most to the least restrictive.
const (
	// Strict accepts saved allow rules only: nothing is approved per call.
	Strict Profile = "strict"
	// Standard is the default: saved rules, else ask the user.
	Standard Profile = "standard"
	// Permissive additionally admits local mode (loopback fetches on
	// allowlisted ports).
	Permissive Profile = "permissive"
)

// Profiles lists every valid profile, most restrictive first.
var Profiles = []Profile{Strict, Standard, Permissive}

// ErrUnknownProfile is wrapped by the error [Parse] returns for a name that
// is not a profile.
var ErrUnknownProfile = errors.New("unknown risk profile")

// validNames is the list shown in messages and hints.
const validNames = "strict, standard, permissive"

// Valid reports whether p is one of [Strict], [Standard], [Permissive].
func (p Profile) Valid() bool {
	switch p {
	case Strict, Standard, Permissive:
		return true
	}
	return false
}

// String returns the profile's name as written in settings.json.
func (p Profile) String() string { return string(p) }

// Parse returns the profile named s. Names are exact and lowercase:
// "Permissive", " strict" and "" are refused with an *refusal.Error of code
// invalid_arguments that names the value (sanitized) and lists the valid
// names, wrapping [ErrUnknownProfile].
func Parse(s string) (Profile, error) {
	if p := Profile(s); p.Valid() {
		return p, nil
	}
	return "", refusal.Newf(refusal.InvalidArguments,
		"risk profile %q is not one of %s", safetext.Short(s), validNames).
		WithHint("use --profile strict, --profile standard or --profile permissive").
		Wrap(ErrUnknownProfile)
}

// mustBeProfile is the settings-file counterpart of Parse: it returns a
// description of what is wrong instead of a refusal, so the caller can name
// the file.
func mustBeProfile(s string) (Profile, error) {
	if p := Profile(s); p.Valid() {
		return p, nil
	}
	return "", fmt.Errorf("risk_profile %q is not one of %s", safetext.Short(s), validNames)
}
