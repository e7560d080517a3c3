package archtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ocfetch/ocfetch/"

// docGraph parses the first fenced block of ARCHITECTURE.md: lines
// "pkg ──► a, b, c" or "pkg ──► (none)".
func docGraph(t *testing.T, doc string) map[string][]string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "```\n")
	if !ok {
		t.Fatal("ARCHITECTURE.md has no fenced graph")
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("ARCHITECTURE.md's graph block is not closed")
	}
	g := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		pkg, deps, ok := strings.Cut(line, "►")
		if !ok {
			t.Fatalf("graph line %q has no ►", line)
		}
		pkg = strings.TrimRight(pkg, "─ ")
		var list []string
		if d := strings.TrimSpace(deps); d != "(none)" {
			for _, p := range strings.Split(d, ",") {
				list = append(list, strings.TrimSpace(p))
			}
		}
		if _, dup := g[pkg]; dup {
			t.Fatalf("graph lists %s twice", pkg)
		}
		slices.Sort(list)
		g[pkg] = list
	}
	return g
}

// codeGraph is the direct ocfetch imports of every package outside
// internal/ and bench/, from one `go list -json`.
func codeGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	g := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		if skip(name) {
			continue
		}
		deps := []string{}
		for _, imp := range p.Imports {
			if d, ok := strings.CutPrefix(imp, module); ok && !skip(d) {
				deps = append(deps, d)
			}
		}
		slices.Sort(deps)
		g[name] = deps
	}
	return g
}

func skip(pkg string) bool {
	return strings.HasPrefix(pkg, "internal/") || pkg == "internal" || strings.HasPrefix(pkg, "bench/")
}

// TestArchitectureGraph fails when docs/ARCHITECTURE.md's package graph
// and the code's imports disagree: a package missing from either, or a
// dependency listed that the code lacks, or the other way round.
func TestArchitectureGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, got := docGraph(t, string(doc)), codeGraph(t, root)
	if len(got) < 10 {
		t.Fatalf("go list found %d packages; want the whole module", len(got))
	}
	for pkg, deps := range got {
		doc, ok := want[pkg]
		if !ok {
			t.Errorf("package %s is missing from ARCHITECTURE.md's graph (it imports %s)", pkg, strings.Join(deps, ", "))
			continue
		}
		if len(deps) == 0 {
			deps = nil
		}
		if !slices.Equal(doc, deps) {
			t.Errorf("ARCHITECTURE.md says %s imports %v; the code imports %v", pkg, doc, deps)
		}
	}
	for pkg := range want {
		if _, ok := got[pkg]; !ok {
			t.Errorf("ARCHITECTURE.md's graph lists %s, which is not a package", pkg)
		}
	}
}

// TestTestSupportOnlyInTests fails when a package's own (non-test) files
// import a test helper: internal/testsupport/... is for _test.go files,
// bench/ and the helpers themselves, so no production import runs into
// test code.
func TestTestSupportOnlyInTests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const helpers = module + "internal/testsupport/"
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		seen++
		if strings.HasPrefix(p.ImportPath, helpers) || strings.HasPrefix(p.ImportPath, module+"bench/") {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, helpers) {
				t.Errorf("%s imports the test helper %s outside its tests", strings.TrimPrefix(p.ImportPath, module), strings.TrimPrefix(imp, module))
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list found %d packages; want the whole module", seen)
	}
}
