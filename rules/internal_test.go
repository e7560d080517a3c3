package rules

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/refusal"
	"github.com/ocfetch/ocfetch/workspace"
)

// FuzzLoad writes arbitrary bytes as rules.json. Load must never panic,
// must refuse only with rules_invalid, and a set it accepts must re-encode
// to a file that loads to the same rules and encodes to the same bytes.
func FuzzLoad(f *testing.F) {
	// A valid file as written by Add.
	f.Add([]byte(`{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "example.com", "port": 443}, "decision": "allow"}]}`))
	// Wildcard, IPv6, Unicode and unnormalised hosts; a conflicting pair.
	f.Add([]byte(`{"schema_version":1,"rules":[{"capability":"network","target":{"schema":"network.target.v1","host":"*.Bücher.example.","port":8443},"decision":"deny"},{"capability":"network","target":{"schema":"network.target.v1","host":"[::1]","port":8080},"decision":"allow"},{"capability":"network","target":{"schema":"network.target.v1","host":"::1","port":8080},"decision":"deny"}]}`))
	// Empty rule list.
	f.Add([]byte(`{"schema_version": 1, "rules": []}`))
	// Duplicate key, unknown field, case-folded key, trailing data.
	f.Add([]byte(`{"schema_version": 1, "schema_version": 1, "rules": []}`))
	f.Add([]byte(`{"schema_version": 1, "rules": [], "x": null}`))
	f.Add([]byte(`{"ſchema_version": 1, "Rules": []}`))
	f.Add([]byte(`{"schema_version": 1, "rules": []} {}`))
	// Bad ports and a bad pattern.
	f.Add([]byte(`{"schema_version": 1, "rules": [{"capability": "network", "target": {"schema": "network.target.v1", "host": "*.com", "port": 4.43e2}, "decision": "allow"}]}`))
	// Deep nesting and garbage.
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]`))
	f.Add([]byte("\xff\xfe{"))
	dir := f.TempDir()
	ws := workspace.Workspace{Root: dir}
	if err := ws.EnsureDir(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(ws.RulesPath(), data, 0o644); err != nil {
			t.Fatal(err)
		}
		set, err := Load(ws)
		if err != nil {
			if code := refusal.CodeOf(err); code != refusal.RulesInvalid {
				t.Fatalf("Load error %v has code %q; want %q", err, code, refusal.RulesInvalid)
			}
			return
		}
		again := encode(set.Rules())
		set2, err := parse(ws.RulesPath(), again)
		if err != nil {
			t.Fatalf("re-encoded set does not load: %v\n%s", err, again)
		}
		if diff := cmp.Diff(set.Rules(), set2.Rules()); diff != "" {
			t.Fatalf("reloaded rules differ (-first +reloaded):\n%s", diff)
		}
		if third := encode(set2.Rules()); string(third) != string(again) {
			t.Fatalf("encoding is not stable:\n%s\n%s", again, third)
		}
		for _, r := range set.Rules() {
			p, err := capability.ParseHostPattern(r.Target.Host)
			if err != nil {
				t.Fatalf("loaded rule %v has an unparseable host: %v", r, err)
			}
			host := p.Host
			if p.Wildcard {
				host = "sub." + p.Host
			}
			if len(host) > capability.MaxHostLength {
				continue
			}
			if _, ok := set.Decide(capability.Network(capability.MustTarget(host, r.Target.Port))); !ok {
				t.Fatalf("rule %v does not match its own target %s", r, host)
			}
		}
	})
}

// TestAddRefusesToOutgrowTheFileLimit fills rules.json to just under
// MaxFileSize: one more rule is refused, and the file is left as it was.
func TestAddRefusesToOutgrowTheFileLimit(t *testing.T) {
	ws := workspace.Workspace{Root: t.TempDir()}
	var all []Rule
	for i := range 25000 {
		all = append(all, NewRule(Allow, capability.HostPattern{Host: fmt.Sprintf("host%05d.example.com", i)}, 443))
	}
	rs := all[:maxFitting(all)]
	if len(rs) == len(all) {
		t.Fatalf("all %d rules fit in %d bytes; the test needs more to reach the limit", len(all), MaxFileSize)
	}
	t.Logf("%d rules of the form hostNNNNN.example.com:443 fit in %d bytes", len(rs), MaxFileSize)
	full := encode(rs)
	if err := workspace.WriteFileAtomic(ws.RulesPath(), full, 0o644); err != nil {
		t.Fatal(err)
	}
	if set, err := Load(ws); err != nil || set.Len() != len(rs) {
		t.Fatalf("Load of the full file = %d rules, %v; want %d", set.Len(), err, len(rs))
	}
	err := Add(context.Background(), ws, NewRule(Deny, capability.HostPattern{Host: "one-more.example.com"}, 443))
	if code := refusal.CodeOf(err); code != refusal.RulesInvalid {
		t.Fatalf("Add past the limit = %v; want code %s", err, refusal.RulesInvalid)
	}
	if got, _ := os.ReadFile(ws.RulesPath()); string(got) != string(full) {
		t.Errorf("the file changed after a refused Add")
	}
	// Flipping an existing rule does not grow the file and is saved.
	if err := Add(context.Background(), ws, NewRule(Deny, capability.HostPattern{Host: "host00000.example.com"}, 443)); err != nil {
		t.Errorf("flipping a rule in a full file: %v", err)
	}
}

// benchRules returns n rules, half exact hosts and half wildcards, a tenth
// of them deny, over ports 443 and 8443.
func benchRules(n int) []Rule {
	rs := make([]Rule, 0, n)
	for i := range n {
		d := Allow
		if i%10 == 0 {
			d = Deny
		}
		port := uint16(443)
		if i%7 == 0 {
			port = 8443
		}
		p := capability.HostPattern{Host: fmt.Sprintf("www%d.site%d.example", i, i)}
		if i%2 == 1 {
			p = capability.HostPattern{Host: fmt.Sprintf("site%d.example", i), Wildcard: true}
		}
		rs = append(rs, NewRule(d, p, port))
	}
	return rs
}

// benchQueries mixes exact hits, wildcard hits three labels deep, port
// mismatches and misses.
func benchQueries(n int) []capability.Requirement {
	qs := make([]capability.Requirement, 0, 1024)
	for j := range 1024 {
		i := (j * 7919) % n
		var host string
		switch j % 4 {
		case 0:
			host = fmt.Sprintf("www%d.site%d.example", i&^1, i&^1) // exact
		case 1:
			host = fmt.Sprintf("a.b.site%d.example", i|1) // wildcard, deep
		case 2:
			host = fmt.Sprintf("cdn.assets.unknown%d.example", i) // miss
		case 3:
			host = fmt.Sprintf("www%d.site%d.example", i, i+1) // near miss
		}
		qs = append(qs, capability.Network(capability.MustTarget(host, 443)))
	}
	return qs
}

func BenchmarkDecide(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			set, err := NewSet(benchRules(n)...)
			if err != nil {
				b.Fatal(err)
			}
			qs := benchQueries(n)
			hits := 0
			for _, q := range qs {
				if _, ok := set.Decide(q); ok {
					hits++
				}
			}
			if hits < len(qs)/4 {
				b.Fatalf("%d of %d queries match; want the mix of hits and misses", hits, len(qs))
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				set.Decide(qs[i%len(qs)])
				i++
			}
		})
	}
}

// BenchmarkLoad10000 parses and indexes a 10,000-rule document (about
// 1.2 MB) in memory.
func BenchmarkLoad10000(b *testing.B) {
	data := encode(mustSorted(b, benchRules(10000)))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse("rules.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadFile10000 is Load through the file system of a
// 10,000-rule rules.json.
func BenchmarkLoadFile10000(b *testing.B) {
	ws := workspace.Workspace{Root: b.TempDir()}
	rs := benchRules(10000)
	data := encode(mustSorted(b, rs))
	if err := workspace.WriteFileAtomic(ws.RulesPath(), data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(rs)), "rules")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(ws); err != nil {
			b.Fatal(err)
		}
	}
}

// maxFitting returns the largest n such that encode(rs[:n]) fits in
// rules.json's size limit.
func maxFitting(rs []Rule) int {
	lo, hi := 0, len(rs) // encode(rs[:lo]) fits; find the last that does
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(encode(rs[:mid])) <= MaxFileSize {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func mustSorted(b *testing.B, rs []Rule) []Rule {
	s, err := NewSet(rs...)
	if err != nil {
		b.Fatal(err)
	}
	return s.Rules()
}
