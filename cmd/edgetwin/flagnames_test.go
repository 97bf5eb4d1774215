package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestNoPackageBelowCmdNamesAFlag holds issue 15's "errors below cmd name
// fields, never flags": an error a library builds names the setting
// (spec.Error's Field, "threads"), and only this command turns it into
// the flag its user typed (--threads). The test reads every error message
// written in the packages below cmd (the format or text of an Errorf, a
// FieldErrorf, errors.New, or a Msg field) and fails on one that spells a
// flag. Flags of other programs (Slurm's sbatch --array) are allowed by
// name.
func TestNoPackageBelowCmdNamesAFlag(t *testing.T) {
	flag := regexp.MustCompile(`(^|[\s"'(])--[a-z][a-z-]*`)
	others := map[string]bool{"--array": true} // sbatch's, in a hint for a Slurm user
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (rel == "cmd" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		report := func(lit *ast.BasicLit) {
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return
			}
			checked++
			for _, m := range flag.FindAllStringSubmatch(s, -1) {
				name := strings.TrimLeft(m[0], " \t\n\"'(")
				if !others[name] {
					t.Errorf("%s: an error names the flag %s: name the setting (spec.FieldErrorf) and let the command name its flag", fset.Position(lit.Pos()), name)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if !isErrorBuilder(n.Fun) {
					return true
				}
				for _, a := range n.Args {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						report(lit)
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Msg" {
					if lit, ok := n.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						report(lit)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 500 {
		t.Fatalf("read %d error messages below cmd; the walk missed the tree", checked)
	}
}

// isErrorBuilder reports whether fun builds an error from a message:
// fmt.Errorf, errors.New, spec.Errorf, spec.FieldErrorf, a Doc's Errorf.
func isErrorBuilder(fun ast.Expr) bool {
	var name string
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		name = f.Sel.Name
		if x, ok := f.X.(*ast.Ident); ok && x.Name == "errors" && name == "New" {
			return true
		}
	case *ast.Ident:
		name = f.Name
	}
	return strings.HasSuffix(name, "Errorf") || strings.HasSuffix(name, "errorf")
}
