package audit

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
)

// TestMarshalLineIsJSONMarshal holds marshalLine to its contract: the
// bytes of json.Marshal, and its error, for every entry (valid or not:
// the encoder does not rely on Validate).
func TestMarshalLineIsJSONMarshal(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 3, 4, 5, 123456000, time.UTC)
	// A requirement's target is one NewTarget builds (the type admits no
	// other), or the zero Target where host and port do not make one.
	req := func(host string, port uint16) *capability.Requirement {
		target, err := capability.NewTarget(host, port)
		if err != nil {
			target = capability.Target{}
		}
		r := capability.Network(target)
		return &r
	}
	full := Entry{
		Time: t0, ExecutionID: "7d7c4a4e-6d3f-4a53-9d1c-0c6f0e0f1a2b", Tool: "fetch", Summary: "GET example.com",
		Requirement: req("example.com", 443), Decision: DecisionAllow, DecidedBy: ByRule, Rule: "allow example.com:443",
		Outcome: OutcomeOK, Status: 200, Bytes: 10240, DurationMS: 3, BytesUp: 12, BytesDown: 34, RunID: "run-1",
		TrustedBy: TrustedByTrustRoot,
	}
	with := func(f func(e *Entry)) Entry { e := full; f(&e); return e }
	cases := []struct {
		name string
		e    Entry
	}{
		{"every field", full},
		{"zero", Entry{}},
		{"no optional field", with(func(e *Entry) {
			e.Requirement, e.Rule, e.Status, e.BytesUp, e.BytesDown, e.RunID, e.TrustedBy = nil, "", 0, 0, 0, "", ""
		})},
		{"ipv6 host", with(func(e *Entry) { e.Requirement = req("::1", 8080) })},
		{"html and quotes", with(func(e *Entry) { e.Summary = `GET <a href="x">&amp;\` })},
		{"control characters", with(func(e *Entry) { e.Summary = "GET a\tb\nc\x00\x1f\x7f" })},
		{"not ascii", with(func(e *Entry) { e.Tool = "fétch\u2028\u2029" })},
		{"invalid utf-8", with(func(e *Entry) { e.Rule = "allow \xff\xfe:443" })},
		{"host not ascii", with(func(e *Entry) { e.Requirement = req("bücher.example", 443) })},
		{"whole seconds", with(func(e *Entry) { e.Time = t0.Truncate(time.Second) })},
		{"trailing zero nanoseconds", with(func(e *Entry) { e.Time = t0.Truncate(time.Millisecond).Add(100 * time.Microsecond) })},
		{"another zone", with(func(e *Entry) { e.Time = t0.In(time.FixedZone("x", 5*3600+30*60)) })},
		{"year 10000", with(func(e *Entry) { e.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) })},
		{"year -1", with(func(e *Entry) { e.Time = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) })},
		{"negative counts", with(func(e *Entry) { e.Status, e.Bytes, e.DurationMS, e.BytesUp, e.BytesDown = -1, -2, -3, -4, -5 })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkMarshalLine(t, tc.e) })
	}

	// Random entries over an alphabet of every class the encoder treats
	// apart, from a fixed seed: bounded and repeatable. Three in four
	// draw from its printable ASCII only, the encoder's own path (an
	// entry with one other byte anywhere goes to json.Marshal).
	printableASCII := []string{"a", "Z", "0", " ", "-", ":", `"`, `\`, "<", ">", "&", "/", "~"}
	every := append([]string{"\t", "\n", "\x00", "\x7f", "é", "\u2028", "\xff"}, printableASCII...)
	rng := rand.New(rand.NewPCG(22, 24))
	var alphabet []string
	str := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	fast := 0
	for range 2000 {
		alphabet = printableASCII
		if rng.IntN(4) == 0 {
			alphabet = every
		}
		e := Entry{
			Time:        time.Unix(rng.Int64N(1<<34), rng.Int64N(1e9)).UTC(),
			ExecutionID: str(), Tool: str(), Summary: str(), Decision: Decision(str()), DecidedBy: DecidedBy(str()),
			Rule: str(), Outcome: str(), Status: rng.IntN(1000) - 1, Bytes: rng.Int64(), DurationMS: rng.Int64N(1e6),
			RunID: str(), TrustedBy: str(),
		}
		if rng.IntN(2) == 0 {
			hosts := []string{"example.com", "::1", "127.0.0.1", "bücher.example", str()}
			e.Requirement = req(hosts[rng.IntN(len(hosts))], uint16(rng.UintN(1<<16)))
			e.Requirement.Kind = capability.Kind(str())
		}
		if rng.IntN(2) == 0 {
			e.BytesUp, e.BytesDown = rng.Int64(), rng.Int64()
		}
		if _, ok := appendLine(nil, &e); ok {
			fast++
		}
		checkMarshalLine(t, e)
		if t.Failed() {
			return
		}
	}
	if fast < 1000 {
		t.Errorf("%d of 2000 random entries took the encoder's own path; want at least 1000", fast)
	}
}

func checkMarshalLine(t *testing.T, e Entry) {
	t.Helper()
	want, werr := json.Marshal(e)
	got, gerr := marshalLine([]byte("prefix"), &e)
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("marshalLine error %v; json.Marshal error %v", gerr, werr)
	}
	if werr != nil {
		return
	}
	if !bytes.HasPrefix(got, []byte("prefix")) {
		t.Fatalf("marshalLine did not append to its buffer: %q", got)
	}
	if diff := cmp.Diff(string(want), string(got[len("prefix"):])); diff != "" {
		t.Errorf("marshalLine differs from json.Marshal (-want +got):\n%s", diff)
	}
}

// TestMarshalLineKnowsEveryField fails when a field is added to Entry or
// capability.Requirement (or a tag changes), or to capability.Target,
// which encodes itself (MarshalJSON, compared byte for byte with
// marshalLine by TestMarshalLineIsJSONMarshal): write it in marshalLine,
// then list it here.
func TestMarshalLineKnowsEveryField(t *testing.T) {
	cases := []struct {
		typ  reflect.Type
		tags []string
	}{
		{reflect.TypeFor[Entry](), []string{"time", "execution_id", "tool", "summary", "requirement,omitempty",
			"decision", "decided_by", "rule,omitempty", "outcome", "status,omitempty", "bytes", "duration_ms",
			"bytes_up,omitempty", "bytes_down,omitempty", "run_id,omitempty", "trusted_by,omitempty"}},
		{reflect.TypeFor[capability.Requirement](), []string{"capability", "target", "-", "-"}},
	}
	t.Run("Target", func(t *testing.T) {
		typ := reflect.TypeFor[capability.Target]()
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Name)
		}
		if diff := cmp.Diff([]string{"host", "port"}, got); diff != "" {
			t.Errorf("capability.Target's fields changed (-marshalLine writes +the type has):\n%s", diff)
		}
		if _, ok := typ.MethodByName("MarshalJSON"); !ok {
			t.Errorf("capability.Target no longer encodes itself: marshalLine writes {host, port} as its MarshalJSON did")
		}
	})
	for _, tc := range cases {
		t.Run(tc.typ.Name(), func(t *testing.T) {
			var got []string
			for f := range tc.typ.Fields() {
				got = append(got, f.Tag.Get("json"))
			}
			if diff := cmp.Diff(tc.tags, got); diff != "" {
				t.Errorf("%s's JSON fields changed (-marshalLine writes +the type has):\n%s", tc.typ, diff)
			}
			for _, m := range []string{"MarshalJSON", "MarshalText"} {
				if _, ok := reflect.PointerTo(tc.typ).MethodByName(m); ok {
					t.Errorf("%s has %s now: marshalLine does not call it", tc.typ, m)
				}
			}
		})
	}
}

// BenchmarkMarshalLine is the encoding of one line, beside json.Marshal.
func BenchmarkMarshalLine(b *testing.B) {
	r := capability.Network(capability.MustTarget("example.com", 443))
	e := Entry{Time: time.Now().UTC(), ExecutionID: "7d7c4a4e-6d3f-4a53-9d1c-0c6f0e0f1a2b", Tool: "fetch",
		Summary: "GET example.com", Requirement: &r, Decision: DecisionAllow, DecidedBy: ByRule,
		Rule: "allow example.com:443", Outcome: OutcomeOK, Status: 200, Bytes: 10240, DurationMS: 3}
	b.Run("marshalLine", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 512)
		for b.Loop() {
			buf, _ = marshalLine(buf[:0], &e)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(&e)
		}
	})
}
