package sandbox

import (
	"strings"
)

// SeatbeltFileRules returns the Seatbelt (sandbox-exec) rules that confine
// a command's files to p, to follow [SeatbeltProfile]'s network rules
// (the last matching rule wins): writes denied everywhere but under the
// writable roots and on the terminal and bit-bucket devices (unless
// p.WriteAnywhere); then denied on every read-only island, whatever
// allowed them; the pinned directories cannot be renamed or removed; the
// hidden paths cannot be read. Linux's /proc/sys has no macOS
// counterpart and is left out.
func SeatbeltFileRules(p *Plan) string {
	var b strings.Builder
	if !p.WriteAnywhere {
		b.WriteString("(deny file-write*)\n")
		b.WriteString("(allow file-write*")
		for _, w := range p.Writable {
			b.WriteString(" (subpath " + sbplString(w) + ")")
		}
		for _, d := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx", "/dev/dtracehelper"} {
			b.WriteString(" (literal " + sbplString(d) + ")")
		}
		b.WriteString(` (regex #"^/dev/ttys[0-9]+$")`)
		b.WriteString(")\n")
	}
	var ro, pins, hidden []string
	for _, m := range p.Mounts {
		switch {
		case m.Why == "kernel":
		case m.Kind == ReadOnly:
			ro = append(ro, " (subpath "+sbplString(m.Path)+")")
		case m.Kind == Pin:
			pins = append(pins, " (literal "+sbplString(m.Path)+")")
		case m.Kind == HideDir || m.Kind == HideFile:
			hidden = append(hidden, " (subpath "+sbplString(m.Path)+")")
		}
	}
	if len(ro) > 0 {
		b.WriteString("(deny file-write*" + strings.Join(ro, "") + ")\n")
	}
	if len(pins) > 0 {
		b.WriteString("(deny file-write-unlink" + strings.Join(pins, "") + ")\n")
	}
	if len(hidden) > 0 {
		b.WriteString("(deny file-read*" + strings.Join(hidden, "") + ")\n")
	}
	return b.String()
}

// sbplString quotes s as a Seatbelt profile string literal.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
