package server

import (
	"encoding/binary"
	"math"

	"example.com/byor/ch17_resp/proto"
	"example.com/byor/ch17_resp/resp"
)

// respTranslate appends to out, in RESP, the reply bin that a command of
// the book's protocol serialized (see package proto). This is how the
// Redis commands reuse the book's implementations unchanged: they run the
// same code, and only the encoding of the answer differs. With asMap, a
// top-level array of alternating keys and values is sent as a map, which
// RESP3 has (HGETALL).
func respTranslate(bin []byte, out []byte, ver int, asMap bool) []byte {
	out, _ = translateValue(bin, out, ver, asMap)
	return out
}

// translateValue translates the value at the front of bin and returns
// what follows it. The server made bin, so it is well-formed.
func translateValue(bin []byte, out []byte, ver int, asMap bool) ([]byte, []byte) {
	u32 := func(b []byte) int { return int(binary.LittleEndian.Uint32(b)) }
	switch bin[0] {
	case proto.SerNil:
		return resp.AppendNull(out, ver), bin[1:]
	case proto.SerErr:
		code := int32(binary.LittleEndian.Uint32(bin[1:]))
		n := u32(bin[5:])
		return resp.AppendError(out, respErrText(code, string(bin[9:9+n]))), bin[9+n:]
	case proto.SerStr:
		n := u32(bin[1:])
		return resp.AppendBulk(out, bin[5:5+n]), bin[5+n:]
	case proto.SerInt:
		return resp.AppendInt(out, int64(binary.LittleEndian.Uint64(bin[1:]))), bin[9:]
	case proto.SerDbl:
		f := math.Float64frombits(binary.LittleEndian.Uint64(bin[1:]))
		return resp.AppendDouble(out, f, ver), bin[9:]
	case proto.SerArr:
		n := u32(bin[1:])
		if asMap && n%2 == 0 {
			out = resp.AppendMap(out, n/2, ver)
		} else {
			out = resp.AppendArray(out, n)
		}
		rest := bin[5:]
		for range n {
			out, rest = translateValue(rest, out, ver, false)
		}
		return out, rest
	}
	panic("respTranslate: unknown tag") // only the server's own replies come here
}

// respErrText gives an error of the book's commands the text Redis sends
// for the same mistake, where there is one; clients look at the first word
// (WRONGTYPE) and people at the rest.
func respErrText(code int32, text string) string {
	switch {
	case code == proto.ErrType:
		return errWrongType
	case text == "expect fp number":
		return "ERR value is not a valid float"
	case text == "expect int" || text == "expect int64":
		return errNotInt
	}
	return "ERR " + text
}

const (
	errWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
	errNotInt    = "ERR value is not an integer or out of range"
	errSyntax    = "ERR syntax error"
)

// globMatch reports whether s matches the glob pattern of Redis's KEYS:
// * (any run), ? (any byte), [abc], [^abc] or [a-z] (a set), and \x (x
// itself).
func globMatch(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 1 && pattern[1] == '*' {
				pattern = pattern[1:]
			}
			if len(pattern) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if globMatch(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			var ok bool
			if ok, pattern = matchSet(pattern[1:], s[0]); !ok {
				return false
			}
			s = s[1:]
		default:
			if pattern[0] == '\\' && len(pattern) > 1 {
				pattern = pattern[1:]
			}
			if len(s) == 0 || s[0] != pattern[0] {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		}
	}
	return len(s) == 0
}

// matchSet matches c against the set at the front of p (just after the
// '['), and returns what follows the set's closing ']'. An unclosed set
// runs to the end of the pattern, as in Redis.
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
