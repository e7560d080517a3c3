package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/ocfetch/ocfetch/audit"
	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/policy"
)

// TestDecisionJSON pins the JSON of a Decision's target (a value a front
// end may encode): the bytes do not depend on Target's representation.
func TestDecisionJSON(t *testing.T) {
	tgt, err := capability.ParseTarget("LOCALHOST.:3000", 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		d    policy.Decision
		want string
	}{
		{"local allow", policy.Decision{Result: policy.Allow, Layer: policy.LayerWorkspace, Rule: "allow localhost:3000", File: "rules.json", Target: tgt, LoopbackPort: 3000, DecidedBy: audit.ByRule},
			`{"Result":1,"Layer":2,"Rule":"allow localhost:3000","File":"rules.json","Target":{"host":"localhost","port":3000},"LoopbackPort":3000,"Refusal":null,"DecidedBy":"rule","Trace":null,"Note":"","TrustedBy":""}`},
		{"zero", policy.Decision{},
			`{"Result":0,"Layer":0,"Rule":"","File":"","Target":{"host":"","port":0},"LoopbackPort":0,"Refusal":null,"DecidedBy":"","Trace":null,"Note":"","TrustedBy":""}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.d)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("json.Marshal = %s; want %s", got, tc.want)
			}
		})
	}
}
