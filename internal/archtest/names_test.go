package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exported returns the exported names package dir declares (functions,
// methods as "T.M", types, vars, consts, struct fields as "T.F"), from
// its non-test files.
func exported(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	names := map[string]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				names[d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						var fields *ast.FieldList
						switch ty := s.Type.(type) {
						case *ast.StructType:
							fields = ty.Fields
						case *ast.InterfaceType:
							fields = ty.Methods
						}
						if fields != nil {
							for _, fl := range fields.List {
								for _, id := range fl.Names {
									names[s.Name.Name+"."+id.Name] = true
								}
								if len(fl.Names) == 0 { // embedded: *exec.Cmd, io.Reader
									if se, ok := fl.Type.(*ast.StarExpr); ok {
										fl.Type = se.X
									}
									if sel, ok := fl.Type.(*ast.SelectorExpr); ok {
										names[s.Name.Name+"."+sel.Sel.Name] = true
									} else if id, ok := fl.Type.(*ast.Ident); ok {
										names[s.Name.Name+"."+id.Name] = true
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							names[id.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

// TestArchitectureNames: in each "## pkg" section of ARCHITECTURE.md, a
// code span that starts with an exported name written as a call or a
// composite literal (`Name(`, `Name{`, `(*T).Name(`) names something the
// package declares, and a literal's listed fields are the type's fields:
// the signatures the page states are the code's, as the graph is.
func TestArchitectureNames(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile(`(?m)^##+ ([a-z][a-z0-9/]*)(?:[: ].*)?$`)
	span := regexp.MustCompile("`([^`]+)`")
	lead := regexp.MustCompile(`^(?:\(\*?[A-Z]\w*\)\.)?([A-Z]\w*)([({])`)
	literal := regexp.MustCompile(`^([A-Z]\w*)\{([A-Za-z, ]+)\}`)
	idx := section.FindAllStringSubmatchIndex(string(doc), -1)
	checked := 0
	for i, m := range idx {
		pkg := string(doc[m[2]:m[3]])
		dir := filepath.Join(root, filepath.FromSlash(pkg))
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		end := len(doc)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		names := exported(t, dir)
		for _, sp := range span.FindAllStringSubmatch(string(doc[m[1]:end]), -1) {
			code := sp[1]
			if strings.Contains(code, ".") && !strings.HasPrefix(code, "(") {
				if l := lead.FindStringSubmatch(code); l == nil || strings.Index(code, ".") < strings.Index(code, l[2]) {
					continue // another package's name (pkg.Name)
				}
			}
			l := lead.FindStringSubmatch(code)
			if l == nil {
				continue
			}
			checked++
			if !names[l[1]] {
				t.Errorf("ARCHITECTURE.md's %s section names `%s`, which package %s does not declare", pkg, code, pkg)
				continue
			}
			if lm := literal.FindStringSubmatch(code); lm != nil {
				for _, f := range strings.Split(lm[2], ",") {
					if f = strings.TrimSpace(f); f != "" && f != "…" && !names[lm[1]+"."+f] {
						t.Errorf("ARCHITECTURE.md's %s section lists field %s of %s, which it does not have", pkg, f, lm[1])
					}
				}
			}
		}
	}
	if checked < 30 {
		t.Fatalf("checked %d names; the page's sections were not found", checked)
	}
}
