package server

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCommandTableMatchesRedis checks every row of the command table that
// real Redis also has against what its COMMAND INFO reports: the arity,
// the flags and the key positions, subcommands' (CLIENT SETNAME) too. It
// needs redis-server and redis-cli (Redis 7.0, the spec) on the PATH, and
// is skipped without them.
func TestCommandTableMatchesRedis(t *testing.T) {
	server, err1 := exec.LookPath("redis-server")
	cli, err2 := exec.LookPath("redis-cli")
	if err1 != nil || err2 != nil {
		t.Skip("redis-server or redis-cli not found")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	srv := exec.Command(server, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
	}

	names := respCommandNames()
	for _, name := range respCommandNames() {
		for _, sub := range commands[name].subs {
			names = append(names, sub.name)
		}
	}
	out, err := exec.Command(cli, append([]string{"-p", port, "--json", "COMMAND", "INFO"}, names...)...).Output()
	if err != nil {
		t.Fatalf("redis-cli: %v", err)
	}
	var infos []json.RawMessage
	if err := json.Unmarshal(out, &infos); err != nil || len(infos) != len(names) {
		t.Fatalf("COMMAND INFO's reply: %v, %d entries for %d names", err, len(infos), len(names))
	}
	compared := 0
	for i, name := range names {
		var info []json.RawMessage
		if err := json.Unmarshal(infos[i], &info); err != nil || len(info) < 6 {
			continue // null: a command Redis 7.0 does not have (the hash field TTLs)
		}
		var arity, first, last, step int
		var flags []string
		json.Unmarshal(info[1], &arity)
		json.Unmarshal(info[2], &flags)
		json.Unmarshal(info[3], &first)
		json.Unmarshal(info[4], &last)
		json.Unmarshal(info[5], &step)
		c := commands[name]
		if c == nil {
			c = subcommands[name]
		}
		var ours []string
		for _, f := range cmdFlagNames {
			if c.flags&f.flag != 0 {
				ours = append(ours, f.name)
			}
		}
		slices.Sort(flags)
		slices.Sort(ours)
		want := fmt.Sprint(arity, flags, first, last, step)
		if got := fmt.Sprint(c.arity, ours, c.first, c.last, c.step); got != want {
			t.Errorf("%s: arity, flags, keys %s; Redis's %s", name, got, want)
		}
		compared++
	}
	t.Logf("%d of %d commands compared with Redis's COMMAND INFO", compared, len(names))
	if compared < len(names)/2 {
		t.Errorf("only %d commands compared", compared)
	}
}

// TestCommandTableRows checks what every row must say: a RESP command has
// Redis's arity, a book command the range of its arguments.
func TestCommandTableRows(t *testing.T) {
	for _, c := range commandRows() {
		if c.name != strings.ToLower(c.name) || len(c.name) > 16 {
			t.Errorf("%q: not a name lookupCommand finds", c.name)
		}
		if c.resp == nil && c.book == nil && c.subs == nil {
			t.Errorf("%s: no handler", c.name)
		}
		if c.subs != nil && c.arity != -1 && c.arity != -2 {
			t.Errorf("%s: a container of arity %d", c.name, c.arity)
		}
		for _, sub := range c.subs {
			if !strings.HasPrefix(sub.name, c.name+"|") || sub.resp == nil || sub.arity == 0 || sub.subs != nil {
				t.Errorf("%s: the subcommand %q", c.name, sub.name)
			}
		}
		if c.resp != nil && c.arity == 0 {
			t.Errorf("%s: no arity", c.name)
		}
		if c.book != nil && (c.bookMin < 1 || c.bookMax != 0 && c.bookMax < c.bookMin) {
			t.Errorf("%s: the book's arguments %d..%d", c.name, c.bookMin, c.bookMax)
		}
		if c.flags&flagWrite != 0 && c.flags&flagReadonly != 0 {
			t.Errorf("%s: both write and readonly", c.name)
		}
	}
}

// TestLookupCommand: names are found as the book's strcasecmp compares
// them (see cmdIs): ASCII letters in any case, nothing else folded.
func TestLookupCommand(t *testing.T) {
	for name, want := range map[string]string{
		"get": "get", "GET": "get", "zQuery": "zquery", "hpexpiretime": "hpexpiretime",
		"\u212aeys": "", "\u017fet": "", "get\x00": "", "ge": "", "": "", "client|setname": "",
	} {
		got := ""
		if c := lookupCommand([]byte(name)); c != nil {
			got = c.name
		}
		if got != want {
			t.Errorf("lookupCommand(%q) = %q, want %q", name, got, want)
		}
	}
	if c := respLookup([]byte("CLIENT")); c == nil || c.lookupSubcommand([]byte("SetName")) != subcommands["client|setname"] ||
		lookupSubcommandName([]byte("Client|GETNAME")) != subcommands["client|getname"] || c.lookupSubcommand([]byte("nosuch")) != nil {
		t.Error("CLIENT's subcommands are not found in any case")
	}
	if respLookup([]byte("zquery")) != nil {
		t.Error("the RESP listener finds the book's zquery")
	}
}

// TestNoCommandNameCompared checks that no handler tells which command it
// runs by its name: the handlers (any function taking the request's
// arguments and a reply writer) never read the name, args[0], which only
// the dispatchers do, and nothing compares a row's name with a string.
// Variants of one handler (EXPIRE and PEXPIRE, TTL and PTTL) are told
// apart by their rows, which give each its own function.
func TestNoCommandNameCompared(t *testing.T) {
	dispatchers := map[string]bool{"respDo": true, "bookRequest": true, "unknownCommand": true}
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
				// A connection's name may be compared with "" (none).
				if ok && isLit && sel.Sel.Name == "name" && lit.Value != `""` {
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
		case "*respWriter", "replyWriter":
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
