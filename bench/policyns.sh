#!/usr/bin/env bash
# Runs a command with a managed policy (the administrator's layer) at the
# path the ocfetch binary reads it from, /etc/ocfetch/policy.json, without
# touching the machine's /etc: in a private mount namespace, /etc is
# overlaid with a tmpfs that holds the policy file. The command and every
# process it starts see the file; nothing outside the namespace does, and
# the overlay is gone when the last process in it ends.
#
# Usage: bench/policyns.sh SCRATCH_DIR CMD [ARGS...]
#   SCRATCH_DIR: an empty directory the caller removes (the tmpfs's mount point)
# MANAGED=0, or a machine where no mount namespace can be made (not root,
# no user namespaces), runs CMD without the policy and says so on stderr.
set -euo pipefail
scratch="$1"
shift
# The policy: a managed deny rule (so every call evaluates one) and a
# profile cap that still admits local mode.
policy='{"schema_version": 1,
 "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "blocked.example", "port": 443}, "decision": "deny"}],
 "max_profile": "permissive", "managed_rules_only": false, "allow_once": true, "require_sandbox": false}'
ns=(unshare --mount --propagation private)
[ "$(id -u)" = 0 ] || ns=(unshare --map-root-user --mount --propagation private)
if [ "${MANAGED:-1}" = 0 ] || ! "${ns[@]}" true 2>/dev/null; then
	echo "policyns: no managed policy (MANAGED=0 or no mount namespace): the managed layer is absent" >&2
	exec "$@"
fi
mkdir -p "$scratch"
exec "${ns[@]}" sh -c '
	set -e
	d="$1"; policy="$2"; shift 2
	mount -t tmpfs -o mode=0755 tmpfs "$d"
	mkdir "$d/upper" "$d/work"
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$d/upper,workdir=$d/work" /etc
	mkdir -p /etc/ocfetch
	chmod 0755 /etc/ocfetch
	printf "%s\n" "$policy" >/etc/ocfetch/policy.json
	chmod 0644 /etc/ocfetch/policy.json
	exec "$@"' policyns "$scratch" "$policy" "$@"
