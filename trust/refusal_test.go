package trust

import (
	"testing"
	"time"
)

// TestRefusalForModel: each workspace_untrusted refusal names the trust
// command for a person, and for a model (an MCP client: ForModel) asks
// the user to run it (refusal.AskUserToRun), as every hint that names an
// ocfetch command does.
func TestRefusalForModel(t *testing.T) {
	const root, file, grant = "/p/proj", "/p/proj/.oc_chat/rules.json", "allow example.com:443"
	cmd := Command(root)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name          string
		st            Status
		person, model string
	}{
		{"no entry", Status{},
			"if you trust this workspace's files, run `" + cmd + "` (an AI agent should ask the user to run it)",
			"ask the user to run: " + cmd + " if they trust this workspace's files"},
		{"replaced", Status{Found: true, State: Replaced, Entry: Entry{Path: root, ID: "1", Incarnation: "birth:1", TrustedAt: at}},
			"if you trust the new directory's files, run `" + cmd + "` (an AI agent should ask the user to run it)",
			"ask the user to run: " + cmd + " if they trust the new directory's files"},
		{"outdated", Status{Found: true, State: Present, Entry: Entry{Path: root, ID: "1", TrustedAt: at}},
			"if you still trust this workspace's files, run `" + cmd + "` again (an AI agent should ask the user to run it)",
			"ask the user to run: " + cmd + " again if they still trust this workspace's files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.st.Refusal(root, file, grant)
			if r.Hint != tc.person {
				t.Errorf("hint for a person\n %q\nwant\n %q", r.Hint, tc.person)
			}
			if got := r.ForModel().Hint; got != tc.model {
				t.Errorf("hint for a model\n %q\nwant\n %q", got, tc.model)
			}
		})
	}
}
