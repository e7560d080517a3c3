// Package benchws is what the bench/ drivers that run the real `ocfetch`
// binary share: a workspace with every policy layer a user's call reads
// (made with the binary's own commands), and the CPU time and peak
// resident set of a child process from /proc.
//
// The layers: the managed policy at /etc/ocfetch/policy.json (put there
// by bench/policyns.sh, in a mount namespace of its own), the trust store
// and the user's rules.json in the user configuration directory (the
// caller points HOME and XDG_CONFIG_HOME at a temporary directory), and
// the workspace's settings.json (profile permissive), local_fetch.json and
// rules.json. Every call then reads or validates each of them, and writes
// its audit line to .oc_chat/audit.jsonl.
package benchws

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Setup makes root a workspace admitting loopback ports (local mode, one
// workspace allow rule each, profile permissive in settings.json), adds a
// user rule, and checks with `rules list --json` and `profile show --json`
// that every layer is in place and the workspace trusted. It returns one
// line saying which layers are present; a managed policy that is missing
// is reported there (policyns.sh could not install it), not an error.
func Setup(bin, root string, ports []int) (string, error) {
	run := func(args ...string) ([]byte, error) {
		out, err := exec.Command(bin, append([]string{"--root", root}, args...)...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("ocfetch %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out, nil
	}
	steps := [][]string{{"profile", "set", "permissive"}, {"rules", "allow", "--user", "example.org"}}
	for _, p := range ports {
		steps = append(steps, []string{"local", "allow", strconv.Itoa(p)}, []string{"rules", "allow", "127.0.0.1:" + strconv.Itoa(p)})
	}
	for _, s := range steps {
		if _, err := run(s...); err != nil {
			return "", err
		}
	}
	out, err := run("rules", "list", "--json")
	if err != nil {
		return "", err
	}
	var list struct {
		UserFile    string `json:"user_file"`
		ManagedFile string `json:"managed_file"`
		Trusted     bool   `json:"trusted"`
		Rules       []struct {
			Layer string `json:"layer"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return "", fmt.Errorf("rules list --json: %v", err)
	}
	layers := map[string]int{}
	for _, r := range list.Rules {
		layers[r.Layer]++
	}
	if !list.Trusted || layers["workspace"] != len(ports) || layers["user"] != 1 {
		return "", fmt.Errorf("rules list: trusted %v, rules by layer %v; want trusted and %d workspace, 1 user rule", list.Trusted, layers, len(ports))
	}
	out, err = run("profile", "show", "--json")
	if err != nil {
		return "", err
	}
	var prof struct {
		Profile    string `json:"profile"`
		Source     string `json:"source"`
		MaxProfile string `json:"max_profile"`
	}
	if err := json.Unmarshal(out, &prof); err != nil {
		return "", fmt.Errorf("profile show --json: %v", err)
	}
	if prof.Profile != "permissive" || prof.Source != "settings" {
		return "", fmt.Errorf("profile show: %+v; want permissive from settings", prof)
	}
	managed := "managed policy ABSENT (bench/policyns.sh could not install it)"
	if layers["managed"] > 0 {
		managed = fmt.Sprintf("managed policy %s (%d rule, max_profile %s)", list.ManagedFile, layers["managed"], prof.MaxProfile)
	}
	// A snapshot of a file changed within securefile.RacyWindow (2 s) is
	// not trusted: the file is read on every call until it is older. Leave
	// the files alone that long, as a user's are between edits.
	time.Sleep(RacyWait)
	return fmt.Sprintf("layers: %s; trust store and user rules (%d) in %s; workspace settings.json, local_fetch.json, rules.json (%d); audit log %s",
		managed, layers["user"], filepath.Dir(list.UserFile), layers["workspace"], AuditLog(root)), nil
}

// RacyWait is how long Setup leaves the files alone before it returns:
// securefile.RacyWindow and a little more.
const RacyWait = 2100 * time.Millisecond

// AuditLog is the workspace's audit log.
func AuditLog(root string) string { return filepath.Join(root, ".oc_chat", "audit.jsonl") }

// AuditLines counts the lines of the workspace's audit log.
func AuditLines(root string) int {
	b, err := os.ReadFile(AuditLog(root))
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on every Linux this runs on).
const clockTick = 10 * time.Millisecond

// CPU returns the CPU time process pid has used so far (all its threads,
// those that have exited too; not its children's): its CPU-time clock
// (clock_getcpuclockid(3): the kernel's runtime of the process, in ns),
// else, where that clock cannot be read, utime+stime from /proc/PID/stat.
// The two are the same time; stat's comes in 10 ms ticks, which over a
// round of 1,000 requests is 10 µs a request — as much as some of the
// differences measured.
func CPU(pid int) (time.Duration, error) {
	if d, err := processClock(pid); err == nil {
		return d, nil
	}
	return statCPU(pid)
}

// statCPU is utime+stime from /proc/PID/stat.
func statCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	// After the command name, which is in parentheses: utime and stime
	// are fields 14 and 15 of proc(5), the 12th and 13th here.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(u+s) * clockTick, nil
}

// Memory returns the peak (VmHWM) and current (VmRSS) resident set of
// process pid, in KiB.
func Memory(pid int) (hwm, rss int64, err error) {
	m, err := Status(pid)
	return m["VmHWM"], m["VmRSS"], err
}

// Status returns the kB figures of /proc/PID/status by name (VmHWM,
// VmRSS, RssAnon, RssFile, …), in KiB.
func Status(pid int) (map[string]int64, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return nil, err
	}
	m := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "kB" {
			continue
		}
		if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			m[strings.TrimSuffix(f[0], ":")] = n
		}
	}
	return m, nil
}
