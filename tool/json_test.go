package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/tool"
)

// TestRequestJSON pins the JSON of a Request and an Admission, whose
// requirements and targets are capability.Targets.
func TestRequestJSON(t *testing.T) {
	tgt, err := capability.ParseTarget("[::1]:3000", 0)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.MustParse("0b6f3c1e-9d2a-4c57-8f0e-5a1b2c3d4e5f")
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"request", tool.Request{ExecutionID: id, Tool: "fetch", Requirements: []capability.Requirement{capability.Network(tgt)}, Summary: "GET [::1]"},
			`{"execution_id":"0b6f3c1e-9d2a-4c57-8f0e-5a1b2c3d4e5f","tool":"fetch","requirements":[{"capability":"network","target":{"host":"::1","port":3000}}],"grants":{}}`},
		{"admission", tool.Admission{Target: tgt, LoopbackPort: 3000}, `{"Target":{"host":"::1","port":3000},"LoopbackPort":3000}`},
		{"zero admission", tool.Admission{}, `{"Target":{"host":"","port":0},"LoopbackPort":0}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("json.Marshal = %s; want %s", got, tc.want)
			}
		})
	}
}
