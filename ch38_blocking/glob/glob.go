// Package glob matches strings against the glob patterns of Redis's KEYS
// (and CONFIG GET): * (any run of bytes), ? (any one byte), [abc], [^abc]
// and [a-z] (one byte of a set), and \x (x itself).
//
// It does so in time proportional to the pattern's length times the
// string's, whatever the pattern. The obvious matcher, which tries every
// length for a * and recurses for the rest, backtracks once per * per
// byte: a pattern of n stars that fails at the very end, such as
// *a*a*a*a*a*a*a*a*a*a*a*ab against a hundred a's, tries some 100^n/n!
// ways and never finishes, and a single KEYS request then freezes the
// server (Redis had the same bug: CVE-2022-36021).
//
// The way out: every token but * matches exactly one byte, so when a match
// fails after a *, only the most recent * needs to absorb one more byte
// and try again. If the pattern after that * cannot match starting here,
// no choice for an earlier * can help: whatever the earlier stars took, the
// last one can take instead. So the matcher remembers one position, the
// last * and where in the string it resumes, and each failure moves that
// resume point one byte on: at most len(s)+1 tries of at most len(pattern)
// steps each.
package glob

import "math"

// Match reports whether s matches the glob pattern. An unclosed set runs
// to the end of the pattern, and a \ at the end of the pattern matches
// itself, as in Redis.
func Match(pattern, s string) bool {
	ok, _ := match(pattern, s)
	return ok
}

// MatchLimit is Match for a caller that bounds the work of many matches
// (KEYS, SCAN ... MATCH): it gives up once it has taken more than limit
// steps, reporting done false. A step is a byte of the pattern compared
// with a byte of s, or a retry after a *; steps is how many it took.
func MatchLimit(pattern, s string, limit int) (matched bool, steps int, done bool) {
	return matchLimit(pattern, s, limit)
}

// match is Match, also returning the number of steps it took, which the
// tests hold to the bound.
func match(pattern, s string) (bool, int) {
	ok, steps, _ := matchLimit(pattern, s, math.MaxInt)
	return ok, steps
}

func matchLimit(pattern, s string, limit int) (bool, int, bool) {
	// exercise: ch23-glob-match
	p, i := 0, 0        // the next token of the pattern; the next byte of s
	star, from := -1, 0 // just after the last * seen; where s resumes after it
	steps := 0
	for {
		if steps++; steps > limit {
			return false, steps, false
		}
		if p < len(pattern) && pattern[p] == '*' {
			for p < len(pattern) && pattern[p] == '*' {
				p++
			}
			if p == len(pattern) {
				return true, steps, true // a trailing * takes the rest
			}
			star, from = p, i
			continue
		}
		if p == len(pattern) && i == len(s) {
			return true, steps, true
		}
		if p < len(pattern) && i < len(s) {
			ok, n := one(pattern[p:], s[i])
			steps += n - 1 // a set of n bytes costs n
			if ok {
				p += n
				i++
				continue
			}
		}
		// No match here: the last * takes one more byte, if there is one.
		if star < 0 || from == len(s) {
			return false, steps, true
		}
		from++
		p, i = star, from
	}
	// end exercise: ch23-glob-match
}

// one matches the byte c against the token at the front of p (not a *),
// and returns the token's length.
func one(p string, c byte) (bool, int) {
	switch p[0] {
	case '?':
		return true, 1
	case '[':
		ok, rest := matchSet(p[1:], c)
		return ok, len(p) - len(rest)
	case '\\':
		if len(p) > 1 {
			return p[1] == c, 2
		}
	}
	return p[0] == c, 1
}

// matchSet matches c against the set at the front of p (just after the
// '['), and returns what follows the set's closing ']'.
func matchSet(p string, c byte) (bool, string) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	match := false
	for len(p) > 0 && p[0] != ']' {
		switch {
		case p[0] == '\\' && len(p) > 1:
			match = match || p[1] == c
			p = p[2:]
		case len(p) > 2 && p[1] == '-' && p[2] != ']':
			lo, hi := p[0], p[2]
			if lo > hi {
				lo, hi = hi, lo
			}
			match = match || lo <= c && c <= hi
			p = p[3:]
		default:
			match = match || p[0] == c
			p = p[1:]
		}
	}
	if len(p) > 0 {
		p = p[1:] // the ']'
	}
	return match != not, p
}
