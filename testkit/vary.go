package testkit

import (
	"fmt"
	"regexp"
	"strings"
)

// MatchVary reports whether got is want, line for line, where «name=regexp»
// in a line of want stands for a part that differs from run to run: it
// matches what regexp matches within that line. With unordered, the lines
// may come in any order. It is the comparison behind the cmpvary script
// command, exported so that tools reading the scripts compare the same
// way. A malformed placeholder is an error.
func MatchVary(got, want string, unordered bool) (bool, error) {
	lines := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	// Each expected line becomes an anchored regexp: literal text quoted,
	// placeholders spliced in as groups.
	var res []*regexp.Regexp
	for _, line := range lines(want) {
		var expr strings.Builder
		expr.WriteString("^")
		for {
			start := strings.Index(line, "«")
			if start < 0 {
				break
			}
			end := strings.Index(line[start:], "»")
			if end < 0 {
				return false, fmt.Errorf("unclosed placeholder in %q (want «name=regexp»)", line)
			}
			name, pattern, ok := strings.Cut(line[start+len("«"):start+end], "=")
			if !ok || name == "" {
				return false, fmt.Errorf("malformed placeholder in %q (want «name=regexp»)", line)
			}
			if _, err := regexp.Compile(pattern); err != nil {
				return false, fmt.Errorf("placeholder %s: %v", name, err)
			}
			expr.WriteString(regexp.QuoteMeta(line[:start]) + "(?:" + pattern + ")")
			line = line[start+end+len("»"):]
		}
		expr.WriteString(regexp.QuoteMeta(line) + "$")
		re, err := regexp.Compile(expr.String())
		if err != nil {
			return false, err
		}
		res = append(res, re)
	}
	gotLines := lines(got)
	if len(gotLines) != len(res) || got != "" && !strings.HasSuffix(got, "\n") {
		return false, nil
	}
	if !unordered {
		for i, re := range res {
			if !re.MatchString(gotLines[i]) {
				return false, nil
			}
		}
		return true, nil
	}
	// In any order: each output line must be paired with an expected line
	// it matches, every line once. Placeholders can make one output line
	// fit several expected ones, so first-fit could miss a pairing that
	// exists; augmenting paths (a bipartite matching) find it.
	pairOf := make([]int, len(res)) // expected line -> output line, or -1
	for j := range pairOf {
		pairOf[j] = -1
	}
	var assign func(i int, seen []bool) bool
	assign = func(i int, seen []bool) bool {
		for j, re := range res {
			if seen[j] || !re.MatchString(gotLines[i]) {
				continue
			}
			seen[j] = true
			if pairOf[j] < 0 || assign(pairOf[j], seen) {
				pairOf[j] = i
				return true
			}
		}
		return false
	}
	for i := range gotLines {
		if !assign(i, make([]bool, len(res))) {
			return false, nil
		}
	}
	ok := true
	return ok, nil
}
