package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/ocfetch/ocfetch/refusal"
)

// refusalCodes are the Code constants the refusal package declares, read
// from its source so that a new code cannot be forgotten here.
func refusalCodes(t *testing.T) map[refusal.Code]bool {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../refusal/refusal.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[refusal.Code]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					c, _ := strconv.Unquote(lit.Value)
					codes[refusal.Code(c)] = true
				}
			}
		}
	}
	if len(codes) < 20 {
		t.Fatalf("read %d codes from refusal.go; the parse is wrong", len(codes))
	}
	return codes
}

// TestReadmeReasonTable: README's "Reason codes" table lists every
// refusal.Code once, and the exit code it gives each is the one the CLI
// exits with (usage 2 for invalid_arguments, else refusal.Code.Policy: 3
// refused by policy, 4 the request failed — docs/DESIGN.md).
func TestReadmeReasonTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([0-9]) \\|")
	codes := refusalCodes(t)
	seen := map[refusal.Code]bool{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		c := refusal.Code(m[1])
		if !codes[c] {
			t.Errorf("README lists %s, which refusal does not declare", c)
			continue
		}
		if seen[c] {
			t.Errorf("README lists %s twice", c)
		}
		seen[c] = true
		want := codeFor(c)
		if c == refusal.InvalidArguments {
			want = exitUsage // getFailed: invalid arguments are a usage error
		}
		if got, _ := strconv.Atoi(m[2]); got != want {
			t.Errorf("README says %s exits %d; the CLI exits %d", c, got, want)
		}
	}
	for c := range codes {
		if !seen[c] {
			t.Errorf("README's reason table lacks %s", c)
		}
	}
}
