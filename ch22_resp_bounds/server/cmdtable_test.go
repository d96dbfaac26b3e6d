package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandTableRows checks what every row must say: a name
// lookupCommand finds, a handler, Redis's arity for a RESP command, and
// the range of its arguments for a book command.
func TestCommandTableRows(t *testing.T) {
	for _, c := range commandRows() {
		if c.name != strings.ToLower(c.name) || len(c.name) > 16 {
			t.Errorf("%q: not a name lookupCommand finds", c.name)
		}
		if c.resp == nil && c.book == nil {
			t.Errorf("%s: no handler", c.name)
		}
		if c.resp != nil && c.arity == 0 {
			t.Errorf("%s: no arity", c.name)
		}
		if c.book != nil && (c.bookMin < 1 || c.bookMax != 0 && c.bookMax < c.bookMin) {
			t.Errorf("%s: the book's arguments %d..%d", c.name, c.bookMin, c.bookMax)
		}
	}
}

// TestLookupCommand: names are found as the book's strcasecmp compares
// them (see cmdIs): ASCII letters in any case, nothing else folded.
func TestLookupCommand(t *testing.T) {
	for name, want := range map[string]string{
		"get": "get", "GET": "get", "zQuery": "zquery", "hpexpiretime": "hpexpiretime",
		"\u212aeys": "", "\u017fet": "", "get\x00": "", "ge": "", "": "",
	} {
		got := ""
		if c := lookupCommand([]byte(name)); c != nil {
			got = c.name
		}
		if got != want {
			t.Errorf("lookupCommand(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestNoCommandNameCompared checks that no handler tells which command it
// runs by its name: the handlers (any function taking the request's
// arguments and a reply writer) never read the name, cmd[0], which only
// the dispatcher does, and nothing compares a row's name with a string.
// Variants of one handler (HEXPIRE and HPEXPIRE, HTTL and HEXPIRETIME)
// are told apart by their rows, which give each its own function.
func TestNoCommandNameCompared(t *testing.T) {
	dispatchers := map[string]bool{"bookRequest": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, file, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if dispatchers[n.Name.Name] {
					return false
				}
				if p := handlerArgs(n.Type); p != "" {
					checked++
					ast.Inspect(n.Body, func(m ast.Node) bool {
						if ix, ok := m.(*ast.IndexExpr); ok {
							if id, ok := ix.X.(*ast.Ident); ok && id.Name == p {
								if lit, ok := ix.Index.(*ast.BasicLit); ok && lit.Value == "0" {
									t.Errorf("%s: %s reads the command's name, %s[0]", fset.Position(ix.Pos()), n.Name.Name, p)
								}
							}
						}
						return true
					})
				}
			case *ast.SwitchStmt:
				if sel, ok := n.Tag.(*ast.SelectorExpr); ok && sel.Sel.Name == "name" {
					t.Errorf("%s: a switch on a name", fset.Position(n.Pos()))
				}
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					return true
				}
				sel, ok := n.X.(*ast.SelectorExpr)
				lit, isLit := n.Y.(*ast.BasicLit)
				if !ok {
					sel, ok = n.Y.(*ast.SelectorExpr)
					lit, isLit = n.X.(*ast.BasicLit)
				}
				if ok && isLit && sel.Sel.Name == "name" {
					t.Errorf("%s: a name compared with %s", fset.Position(n.Pos()), lit.Value)
				}
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("only %d handlers found: the test no longer recognizes them", checked)
	}
}

// handlerArgs returns the name of the parameter holding the request's
// arguments, if the function's signature is a handler's: the arguments
// ([][]byte or []string) and a reply writer.
func handlerArgs(ft *ast.FuncType) string {
	args, writer := "", false
	for _, field := range ft.Params.List {
		switch typ := types(field.Type); typ {
		case "[][]byte", "[]string":
			if len(field.Names) == 1 {
				args = field.Names[0].Name
			}
		case "replyWriter":
			writer = true
		}
	}
	if !writer {
		return ""
	}
	return args
}

// types spells a parameter's type for handlerArgs.
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + types(e.X)
	case *ast.ArrayType:
		return "[]" + types(e.Elt)
	}
	return ""
}
