package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// packageVars lists the package-level variables the command may have, and
// why none is state a run changes (issue 46: the player's backend, tables
// and clock were globals that one command's flags set for the next).
var packageVars = map[string]string{
	"commands": "the subcommands, filled by register from init and read only after",
	"errUsage": "a sentinel error, never assigned",
}

// TestNoPackageState: the package-level variables of cmd/dama are the
// ones packageVars allows, and no function but init and register assigns
// to them, takes their address or changes what they hold. A command's
// writers, input and interrupt are its env; its flags live in variables
// of its init, bound afresh by newFlagSet.
func TestNoPackageState(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg := pkgs["main"]
	if pkg == nil {
		t.Fatal("no package main in the folder")
	}
	vars := map[string]bool{}
	specs := map[any]bool{} // their declarations
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					specs[s] = true
					for _, n := range s.(*ast.ValueSpec).Names {
						vars[n.Name] = true
						if _, ok := packageVars[n.Name]; !ok {
							t.Errorf("%s: package-level var %s: keep state in the command's env or its init's variables", fset.Position(n.Pos()), n.Name)
						}
					}
				}
			}
		}
	}
	if len(vars) == 0 {
		t.Fatal("found no package-level variable at all: the check reads nothing")
	}
	// written reports the package-level variable that e changes, or "".
	written := func(e ast.Expr) string {
		for {
			switch x := e.(type) {
			case *ast.Ident:
				// Unresolved: declared in another file of the package.
				if vars[x.Name] && (x.Obj == nil || specs[x.Obj.Decl]) {
					return x.Name
				}
				return ""
			case *ast.IndexExpr:
				e = x.X
			case *ast.SelectorExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			case *ast.ParenExpr:
				e = x.X
			default:
				return ""
			}
		}
	}
	var bad []string
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil && (fd.Name.Name == "init" || fd.Name.Name == "register") {
				continue
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				var targets []ast.Expr
				switch x := n.(type) {
				case *ast.AssignStmt:
					targets = x.Lhs
				case *ast.IncDecStmt:
					targets = []ast.Expr{x.X}
				case *ast.UnaryExpr:
					if x.Op == token.AND {
						targets = []ast.Expr{x.X}
					}
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(x.Args) > 0 {
						targets = []ast.Expr{x.Args[0]}
					}
				}
				for _, e := range targets {
					if v := written(e); v != "" {
						bad = append(bad, fset.Position(e.Pos()).String()+": "+fd.Name.Name+" changes "+v)
					}
				}
				return true
			})
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}
