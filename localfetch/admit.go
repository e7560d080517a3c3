package localfetch

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/internal/securefile"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/risk"
	"github.com/ocfetch/ocfetch/safetext"
	"github.com/ocfetch/ocfetch/workspace"
)

// isLocalHost is the one local-host test, [capability.IsLocalHost].
func isLocalHost(h string) bool { return capability.IsLocalHost(h) }

// Admit applies the local-mode admission rule to an origin already parsed
// by [capability.OriginOf] (scheme http or https, host normalised, port
// parsed; the caller has refused URL credentials) and returns the
// admitted port. It is the layer policy.Decide consults for a local host
// (once per request and once per redirect hop, each a call of Decide);
// the URL's parse-level checks (scheme, credentials, host normalisation,
// port syntax) are the front end's, done once before any policy runs. The
// rule: profile permissive (local_profile_not_permissive),
// one of the three local hosts (invalid_host), the port written
// (local_port_missing), the port in the allowlist read on this call, no
// caching (local_port_not_allowed, local_allowlist_missing,
// local_allowlist_invalid).
func Admit(o capability.Origin, ws workspace.Workspace, profile risk.Profile) (uint16, error) {
	return admit(nil, o, ws, profile)
}

// AdmitContext is [Admit] within the call ctx carries
// ([securefile.WithCall]): the allowlist is checked once per call, and
// every later step of the call (a redirect's decision) decides on the
// same snapshot.
func AdmitContext(ctx context.Context, o capability.Origin, ws workspace.Workspace, profile risk.Profile) (uint16, error) {
	return admit(securefile.CallFrom(ctx), o, ws, profile)
}

func admit(call *securefile.Call, o capability.Origin, ws workspace.Workspace, profile risk.Profile) (uint16, error) {
	if err := checkProfile(ws, profile); err != nil {
		return 0, err
	}
	host := o.Target.Host()
	if !isLocalHost(host) {
		return 0, notLocal(host, host)
	}
	if !o.PortWritten {
		return 0, portMissing(o.Scheme, o.Target)
	}
	port := o.Target.Port()
	ports, err := readAllowedPorts(call, ws)
	if err != nil {
		return 0, err
	}
	if !ports.Contains(port) {
		return 0, refusal.Newf(refusal.LocalPortNotAllowed,
			"port %d on %s is not in the local allowlist %s (allowed: %s)", port, host, AllowlistPath(ws), ports).
			WithHints(fmt.Sprintf(`run "ocfetch local allow %d" to allow it`, port), refusal.AskUserToRun(allowCommand(strconv.Itoa(int(port)))))
	}
	return port, nil
}

func checkProfile(ws workspace.Workspace, profile risk.Profile) error {
	if profile == Profile {
		return nil
	}
	return refusal.Newf(refusal.LocalProfileNotPermissive,
		"local fetch needs risk profile %s; the active profile is %s", Profile, profileName(profile)).
		WithHints(fmt.Sprintf(`set "risk_profile": "permissive" in %s, or pass --profile permissive`, ws.SettingsPath()),
			refusal.AskUserToRun("ocfetch profile set permissive")+" (it writes "+ws.SettingsPath()+"), or to start ocfetch with --profile permissive")
}

func notLocal(host, raw string) error {
	shown := host
	if shown == "" {
		shown = safetext.Short(raw)
	}
	return refusal.Newf(refusal.InvalidHost,
		"host %q is not a local host; local fetch admits only localhost, 127.0.0.1 and ::1", shown).
		WithHint("write the host as localhost, 127.0.0.1 or [::1]")
}

func portMissing(scheme string, t capability.Target) error {
	return refusal.Newf(refusal.LocalPortMissing,
		"the URL for %s has no explicit port; local fetch needs one", t.Host()).
		WithHints(fmt.Sprintf(`write the port, as in %s://%s:3000/, and allow it with "ocfetch local allow 3000"`, scheme, t.HostString()),
			fmt.Sprintf("write the port, as in %s://%s:3000/; to allow it, %s", scheme, t.HostString(), refusal.AskUserToRun(allowCommand("3000"))))
}

// profileName quotes a profile for a message: a valid name as is, anything
// else sanitized and quoted.
func profileName(p risk.Profile) string {
	if p.Valid() {
		return string(p)
	}
	return fmt.Sprintf("%q", safetext.Short(string(p)))
}
