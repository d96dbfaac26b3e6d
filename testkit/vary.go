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
	ok := len(gotLines) == len(res) && (got == "" || strings.HasSuffix(got, "\n"))
	used := make([]bool, len(res))
	for i := 0; ok && i < len(gotLines); i++ {
		ok = false
		for j, re := range res {
			if !used[j] && (unordered || j == i) && re.MatchString(gotLines[i]) {
				used[j], ok = true, true
				break
			}
		}
	}
	return ok, nil
}
