package workshop

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Cut returns a Go source file with exercise id's regions replaced by
// stubs and every marker line (of any exercise) removed. It also reports
// the functions it stubbed. Imports used only by the cut code are dropped
// so that the stubbed file still compiles. A file without regions of id
// comes back with only its marker lines removed.
func Cut(name string, src []byte, id string) ([]byte, []string, error) {
	regions, err := ParseMarkers(name, src)
	if err != nil {
		return nil, nil, err
	}
	if len(regions) == 0 {
		return src, nil, nil
	}
	funcs, err := enclosingFuncs(name, src, regions)
	if err != nil {
		return nil, nil, err
	}
	lines := strings.Split(string(src), "\n")
	var out []string
	var stubbed []string
	cutting := false
	for i, line := range lines {
		n := i + 1
		if r, ok := regionAt(regions, n); ok && r.ID == id {
			if n == r.BeginLine {
				fn := funcs[r.BeginLine]
				stubbed = append(stubbed, fn)
				stub := "panic(" + strconv.Quote("exercise "+id+": implement "+fn) + ")"
				out = append(out, r.Indent+"// Your code here: see README.md (exercise "+id+").")
				if strings.HasPrefix(fn, partPrefix) {
					// Code follows the stub; a bare panic would make go vet
					// call it unreachable.
					out = append(out, r.Indent+"if true {", r.Indent+"\t"+stub, r.Indent+"}")
				} else {
					out = append(out, r.Indent+stub)
				}
				cutting = true
			} else if n == r.EndLine {
				cutting = false
			}
			continue
		}
		if cutting || IsMarker(line) {
			continue
		}
		out = append(out, line)
	}
	res := []byte(strings.Join(out, "\n"))
	if len(stubbed) == 0 {
		return res, nil, nil
	}
	res, err = dropUnusedImports(name, res)
	if err != nil {
		return nil, nil, err
	}
	return res, stubbed, nil
}

// partPrefix starts the name of a region that is only part of a function.
const partPrefix = "the marked part of "

// regionAt returns the region whose markers enclose line n (markers included).
func regionAt(regions []Region, n int) (Region, bool) {
	for _, r := range regions {
		if n >= r.BeginLine && n <= r.EndLine {
			return r, true
		}
	}
	return Region{}, false
}

// enclosingFuncs checks that every region lies inside one function body,
// at most one region per exercise and function, and maps each region's
// begin line to its function's name.
func enclosingFuncs(name string, src []byte, regions []Region) (map[int]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	names := map[int]string{}
	seen := map[string]int{} // exercise id + function -> begin line
	for _, r := range regions {
		var found *ast.FuncDecl
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			open := fset.Position(fd.Body.Lbrace).Line
			close := fset.Position(fd.Body.Rbrace).Line
			if r.BeginLine > open && r.EndLine < close {
				found = fd
				break
			}
		}
		if found == nil {
			return nil, &MarkerError{name, r.BeginLine, fmt.Sprintf("exercise %s: markers must both sit inside one function body", r.ID)}
		}
		fn := funcName(found)
		key := r.ID + " " + fn
		open := fset.Position(found.Body.Lbrace).Line
		close := fset.Position(found.Body.Rbrace).Line
		for n := open + 1; n < close; n++ {
			t := strings.TrimSpace(lines[n-1])
			if (n < r.BeginLine || n > r.EndLine) && t != "" && !strings.HasPrefix(t, "//") {
				fn = partPrefix + fn
				break
			}
		}
		if prev, dup := seen[key]; dup {
			return nil, &MarkerError{name, r.BeginLine, fmt.Sprintf("exercise %s marks %s twice (first on line %d)", r.ID, funcName(found), prev)}
		}
		seen[key] = r.BeginLine
		names[r.BeginLine] = fn
	}
	return names, nil
}

// funcName names a function the way a reader would: "rotLeft" or, for a
// method, "HMap.Insert".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		default:
			return fd.Name.Name
		}
	}
}

// majorVersion matches the /vN element that ends some import paths.
var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// dropUnusedImports removes imports that no selector of the file uses any
// more, then formats the file.
func dropUnusedImports(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("after cutting: %w", err)
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	drop := map[int]bool{}
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		local := path.Base(p)
		if majorVersion.MatchString(local) {
			local = path.Base(path.Dir(p))
		}
		if spec.Name != nil {
			local = spec.Name.Name
		}
		if local == "_" || local == "." || used[local] {
			continue
		}
		drop[fset.Position(spec.Pos()).Line] = true
	}
	if len(drop) > 0 {
		lines := strings.Split(string(src), "\n")
		var kept []string
		for i, l := range lines {
			if drop[i+1] {
				t := strings.TrimSpace(l)
				if strings.HasPrefix(t, "import ") && !strings.HasSuffix(t, "(") {
					continue // a single-line import
				}
				if !strings.HasPrefix(t, "import") {
					continue // a line of an import block
				}
			}
			kept = append(kept, l)
		}
		src = []byte(strings.Join(kept, "\n"))
	}
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("after cutting: %w", err)
	}
	return out, nil
}
