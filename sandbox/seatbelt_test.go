package sandbox

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeatbeltProfile checks the profile text the macOS path runs under
// (no Mac runs these tests: the text and the command line are what is
// checked here).
func TestSeatbeltProfile(t *testing.T) {
	want := `(version 1)
(allow default)
(deny network*)
(allow network-outbound (remote ip "localhost:3128"))
(allow network-outbound (remote unix-socket))
(deny network-outbound (literal "/private/var/run/mDNSResponder"))
`
	if diff := cmp.Diff(want, SeatbeltProfile(3128)); diff != "" {
		t.Errorf("profile (-want +got)\n%s", diff)
	}
	// The deny of all network comes before the one allowed port: in a
	// Seatbelt profile the last matching rule wins.
	p := SeatbeltProfile(8080)
	if strings.Index(p, "(deny network*)") > strings.Index(p, `"localhost:8080"`) {
		t.Error("the port's allow must follow the network deny")
	}
	if strings.Count(p, "localhost:") != 1 {
		t.Errorf("profile allows more than one port:\n%s", p)
	}
}

func TestSeatbeltArgv(t *testing.T) {
	got := SeatbeltArgv(3128, []string{"/usr/bin/curl", "-s", "https://example.com/"})
	want := []string{"/usr/bin/sandbox-exec", "-p", SeatbeltProfile(3128), "/usr/bin/curl", "-s", "https://example.com/"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("argv (-want +got)\n%s", diff)
	}
}

// TestSeatbeltFileRules checks the file rules the macOS profile gets for
// a plan (as text: no Mac runs these tests): writes denied but under the
// roots and on the terminal devices, then denied again on the read-only
// islands (after the allow: the last matching rule wins), the pinned
// directories not removable, the hidden paths unreadable, /proc/sys left
// out, and quotes in a path escaped.
func TestSeatbeltFileRules(t *testing.T) {
	p := &Plan{
		Writable: []string{"/private/tmp", `/Users/me/src/a "quoted" dir`},
		Mounts: []Mount{
			{Pin, "/Users/me/src/a \"quoted\" dir/.git", "pin"},
			{ReadOnly, "/proc/sys", "kernel"},
			{ReadOnly, "/Users/me/src/a \"quoted\" dir/.oc_chat", "policy"},
			{ReadOnly, "/Users/me/Library/Application Support/ocfetch", "policy"},
			{ReadOnly, "/Users/me/src/a \"quoted\" dir/.git/hooks", "dangerous"},
			{HideDir, "/Users/me/.ssh", "deny-read"},
		},
	}
	want := `(deny file-write*)
(allow file-write* (subpath "/private/tmp") (subpath "/Users/me/src/a \"quoted\" dir") (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/ptmx") (literal "/dev/dtracehelper") (regex #"^/dev/ttys[0-9]+$"))
(deny file-write* (subpath "/Users/me/src/a \"quoted\" dir/.oc_chat") (subpath "/Users/me/Library/Application Support/ocfetch") (subpath "/Users/me/src/a \"quoted\" dir/.git/hooks"))
(deny file-write-unlink (literal "/Users/me/src/a \"quoted\" dir/.git"))
(deny file-read* (subpath "/Users/me/.ssh"))
`
	if diff := cmp.Diff(want, SeatbeltFileRules(p)); diff != "" {
		t.Errorf("rules (-want +got)\n%s", diff)
	}
	p.WriteAnywhere, p.Writable = true, nil
	got := SeatbeltFileRules(p)
	if strings.Contains(got, "(deny file-write*)\n") || !strings.Contains(got, `(deny file-write* (subpath "/Users/me/src/a \"quoted\" dir/.oc_chat")`) {
		t.Errorf("WriteAnywhere: want no blanket deny, the islands still read-only:\n%s", got)
	}
	// Appended to the network rules, the file rules come last.
	full := SeatbeltProfile(3128) + SeatbeltFileRules(p)
	if !strings.HasPrefix(full, SeatbeltProfile(3128)) || !strings.HasSuffix(full, "(deny file-read* (subpath \"/Users/me/.ssh\"))\n") {
		t.Errorf("profile:\n%s", full)
	}
}
