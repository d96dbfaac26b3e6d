package chapter_test

import (
	"bufio"
	"sort"
	"strings"

	rawresp "example.com/byor/testkit/resp"
)

// The hash family's random commands: HMSET, HSETNX, HSTRLEN,
// HINCRBYFLOAT, HRANDFIELD and HSCAN, with the arguments Redis refuses
// among those it takes, on the generator's few keys of every type.
func init() {
	familyGens = append(familyGens, func(g *cmdGen) []string {
		r := g.rng
		switch r.IntN(7) {
		case 0:
			cmd := []string{"HMSET", g.key()}
			for range r.IntN(4) {
				cmd = append(cmd, g.member(), g.hashFloat())
			}
			if r.IntN(6) == 0 {
				cmd = append(cmd, g.member()) // odd: refused
			}
			return cmd
		case 1:
			return []string{"HSETNX", g.key(), g.member(), g.hashFloat()}
		case 2:
			return []string{"HSTRLEN", g.key(), g.member()}
		case 3:
			return []string{"HINCRBYFLOAT", g.key(), g.member(), g.hashFloat()}
		case 4:
			cmd := []string{"HRANDFIELD", g.key()}
			if r.IntN(5) == 0 {
				return cmd
			}
			cmd = append(cmd, g.pick("0", "1", "2", "3", "5", "10", "-1", "-3", "-20", "x", "", "+2", "01",
				"9223372036854775807", "-9223372036854775808", "4611686018427387903", "4611686018427387904",
				"-4611686018427387904", "-9223372036854770000"))
			switch r.IntN(4) {
			case 0:
				cmd = append(cmd, g.pick("WITHVALUES", "withvalues", "WITHVALUE", "x"))
			case 1:
				cmd = append(cmd, "WITHVALUES", g.pick("WITHVALUES", "x"))
			}
			// Counts past a few thousand picks are left out: a reply of
			// 2^62 picks is refused here and would take Redis forever.
			if len(cmd) > 2 && strings.HasPrefix(cmd[2], "-") && len(cmd[2]) > 4 && len(cmd) == 3 && cmd[2] != "-9223372036854775808" {
				cmd[2] = "-7"
			}
			return cmd
		case 5:
			cmd := []string{"HSCAN", g.key(), g.pick("0", "0", "0", "1", "5", "-1", "x", "", "18446744073709551615", "18446744073709551616", "+3")}
			for range r.IntN(3) {
				switch r.IntN(5) {
				case 0, 1:
					cmd = append(cmd, g.pick("COUNT", "count"), g.pick("1", "10", "0", "-1", "x", "1000"))
				case 2, 3:
					cmd = append(cmd, g.pick("MATCH", "match"), g.pick("*", "a*", "?", "[a-c]", "x", "", "a b", "*e*"))
				default:
					cmd = append(cmd, g.pick("TYPE", "NOVALUES", "COUNT"))
				}
			}
			return cmd
		}
		// Values that HINCRBYFLOAT reads, or refuses to.
		return []string{"HSET", g.key(), g.member(), g.hashFloat()}
	})
	familyNormalizers = append(familyNormalizers, normalizeHashes)
}

// hashFloat picks a value or increment for HINCRBYFLOAT: numbers Redis
// sums in a long double (and writes with 17 decimals), and some it
// refuses. None makes a sum longer than 64 bytes, which would move
// Redis's hash out of its compact encoding, and HSCAN's replies apart
// (see normalizeHashes); the unit tests cover larger sums.
func (g *cmdGen) hashFloat() string {
	return g.pick("1", "0.1", "0.2", "-0.3", "1.5", "10.5e-1", "3e2", "1e21", "123456789.123", "1e-5",
		"0x10", "0x1p-3", "-0", "5.", ".5", "inf", "-inf", "nan", "1e-400",
		" 1", "1 ", "", "abc", "1e", "17179869184", "9223372036854775807", "0.3333333333333333333333")
}

// normalizeHashes takes out what chance decides: which fields HRANDFIELD
// picks (its reply keeps its length and the type of each element), and
// the order of HSCAN's pairs (sorted; the hashes here are small, which
// both answer whole in one call).
func normalizeHashes(cmd []string, reply string) (string, bool) {
	name := strings.ToUpper(cmd[0])
	if name != "HRANDFIELD" && name != "HSCAN" || reply[0] != '*' && reply[0] != '$' {
		return "", false
	}
	r := bufio.NewReader(strings.NewReader(reply))
	header, _ := r.ReadString('\n')
	switch {
	case name == "HRANDFIELD" && header[0] == '$':
		return "$field", true
	case name == "HRANDFIELD":
		var out strings.Builder
		out.WriteString(header)
		for {
			e, err := rawresp.ReadRaw(r, nil, maxDiffReply)
			if err != nil {
				break
			}
			out.WriteString(elemShape(string(e)))
		}
		return out.String(), true
	case name == "HSCAN" && header == "*2\r\n":
		cursor, err := rawresp.ReadRaw(r, nil, maxDiffReply)
		if err != nil {
			return "", false
		}
		fields, _ := r.ReadString('\n')
		var pairs []string
		for {
			f, err1 := rawresp.ReadRaw(r, nil, maxDiffReply)
			v, err2 := rawresp.ReadRaw(r, nil, maxDiffReply)
			if err1 != nil || err2 != nil {
				break
			}
			pairs = append(pairs, string(f)+string(v))
		}
		sort.Strings(pairs)
		return header + string(cursor) + fields + strings.Join(pairs, ""), true
	}
	return "", false
}

// elemShape is an element's type, and for an array, its elements' types.
func elemShape(e string) string {
	if e[0] != '*' {
		return string(e[0])
	}
	line, _, _ := strings.Cut(e, "\r\n")
	return line + "[" + strings.Repeat("$", len(e)-len(strings.ReplaceAll(e, "$", ""))) + "]"
}
