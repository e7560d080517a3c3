package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestInvalidArgumentsExampleFitsTheSchema: the object an
// invalid_arguments hint shows a model, which it may well copy, is valid
// against the input schema the same server lists, caps included — a
// server started with a lower --timeout or body cap than the defaults
// must not show an example it would refuse, and the example must not
// combine fields the call refuses together (a body with GET).
func TestInvalidArgumentsExampleFitsTheSchema(t *testing.T) {
	cs := connect(t, &Options{Root: t.TempDir(), FetchTimeout: 5 * time.Second, MaxBodyBytes: 1000}, clientSpec{})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(tools.Tools[0].InputSchema)
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{}`, `{"url": "https://example.com/", "max_length": 0}`, `{"url": "https://example.com/", "timeout": 60}`} {
		res := callFetch(t, cs, args)
		_, hint, _ := strings.Cut(text(res), "\nhint: pass one JSON object: ")
		start, end := strings.Index(hint, "{"), strings.LastIndex(hint, "}")
		if !res.IsError || start != 0 || end < 0 {
			t.Fatalf("%s: isError %v, text %q; want invalid_arguments with an example object", args, res.IsError, text(res))
		}
		example := strings.ReplaceAll(hint[:end+1], "{…}", "{}")
		var v map[string]any
		if err := json.Unmarshal([]byte(example), &v); err != nil {
			t.Fatalf("%s: the example %s is not JSON: %v", args, example, err)
		}
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s: the example %s does not fit the listed input schema: %v", args, example, err)
		}
		// Nor may the call refuse it: sent as is, to a loopback URL that
		// the policy refuses before any dial, it is not invalid_arguments.
		v["url"] = "http://127.0.0.1:1/"
		call, _ := json.Marshal(v)
		if res := callFetch(t, cs, string(call)); strings.HasPrefix(text(res), "invalid_arguments") {
			t.Errorf("the example, sent as %s: %s", call, text(res))
		}
	}
}
