package audit

import "testing"

// TestLookAtLine: the command that shows one line of the log, in the
// platform's shell: sed for POSIX shells; on Windows, which has no sed,
// PowerShell's Get-Content (its index counts from 0).
func TestLookAtLine(t *testing.T) {
	for _, tc := range []struct {
		goos, path string
		line       int
		want       string
	}{
		{"linux", "/tmp/my ws/.oc_chat/audit.jsonl", 7, "sed -n 7p '/tmp/my ws/.oc_chat/audit.jsonl'"},
		{"darwin", "/Users/me/p/.oc_chat/audit.jsonl", 1, "sed -n 1p /Users/me/p/.oc_chat/audit.jsonl"},
		{"windows", `C:\Users\me\p\.oc_chat\audit.jsonl`, 7, `(Get-Content -LiteralPath 'C:\Users\me\p\.oc_chat\audit.jsonl')[6]   # PowerShell`},
	} {
		if got := lookAtLine(tc.goos, tc.line, tc.path); got != tc.want {
			t.Errorf("lookAtLine(%s, %d) = %q; want %q", tc.goos, tc.line, got, tc.want)
		}
	}
}
