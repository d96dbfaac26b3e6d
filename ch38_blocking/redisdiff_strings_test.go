package chapter_test

import (
	"strconv"
	"time"
)

// The string family's share of the differential test: SET with every
// option, the commands that share its grammar, ranges, bits, LCS and
// INCRBYFLOAT, on the generator's few keys (which also hold sorted sets
// and hashes, for the wrong-type errors).
func init() {
	familyGens = append(familyGens, stringCmd)
}

// strValue is a value for the string commands: numbers as INCRBYFLOAT
// reads them and does not, bits (over several words too, for the ranges
// of BITCOUNT and BITPOS), and text that LCS finds in common.
func (g *cmdGen) strValue() string {
	return g.pick("v", "", "1", "10", "-3", "1.5", "3e2", "0x10", " 1", "1e400", "inf", "abc",
		"ohmytext", "mynewtext", "\xff\x00\x0f", "\x80", "foobar", "1.0e-5", "-0", "5.0000000000000001",
		"the quick brown fox jumps over the lazy dog", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01")
}

// strTime is the time of a SET or GETEX expiry form: relative times that
// do not pass during the run, absolute ones in the future and, for GETEX
// (past), in the past, and the errors. SET is not sent a time in the past:
// Redis keeps such a key, expired, until it next looks at it or its
// expiry cycle comes by, and DBSIZE and INFO count it meanwhile, where
// this server deletes it at once (see the README).
func (g *cmdGen) strTime(form string, past bool) string {
	now := time.Now()
	at := strconv.FormatInt(now.Unix()+100000, 10)
	if past && g.rng.IntN(2) == 0 {
		at = "1"
	}
	switch form {
	case "EXAT", "exat":
		// The last second whose milliseconds an int64 holds, and the
		// first past it (an error).
		return g.pick(at, at, "0", "-1", "abc", "9223372036854775807", "9223372036854775", "9223372036854776")
	case "PXAT", "pxat":
		return g.pick(at+"000", at+"000", "0", "-5", "9223372036854", "-9223372036854775808",
			"9223372036854775807", "9223372036854775806")
	}
	return g.ttl()
}

// strOffset is an offset or a range's end: small ones, negative ones, and
// those past the bounds (none makes a string longer than a few KB).
func (g *cmdGen) strOffset() string {
	return g.pick("0", "1", "2", "3", "7", "8", "-1", "-2", "-100", "100", "15", "40",
		"9223372036854775807", "-9223372036854775808", "4294967296", "abc", "")
}

func stringCmd(g *cmdGen) []string {
	r := g.rng
	k := g.key()
	switch r.IntN(22) {
	case 0, 1, 2:
		cmd := []string{"SET", k, g.strValue()}
		for range r.IntN(4) {
			switch opt := g.pick("NX", "XX", "GET", "KEEPTTL", "EX", "PX", "EXAT", "PXAT", "px", "exat", "nx", "BAD", "PERSIST"); opt {
			case "EX", "PX", "EXAT", "PXAT", "px", "exat":
				cmd = append(cmd, opt)
				if r.IntN(20) > 0 {
					cmd = append(cmd, g.strTime(opt, false))
				}
			default:
				cmd = append(cmd, opt)
			}
		}
		return cmd
	case 3:
		name := g.pick("SETEX", "PSETEX")
		return []string{name, k, g.ttl(), g.strValue()}
	case 4:
		return []string{g.pick("SETNX", "GETSET"), k, g.strValue()}
	case 5:
		return []string{g.pick("GETDEL", "GET", "STRLEN"), k}
	case 6, 7:
		cmd := []string{"GETEX", k}
		for range r.IntN(3) {
			opt := g.pick("EX", "PX", "EXAT", "PXAT", "PERSIST", "persist", "KEEPTTL", "NX", "GET")
			cmd = append(cmd, opt)
			if opt != "PERSIST" && opt != "persist" && r.IntN(10) > 0 {
				cmd = append(cmd, g.strTime(opt, true))
			}
		}
		return cmd
	case 8:
		return []string{g.pick("GETRANGE", "SUBSTR"), k, g.strOffset(), g.strOffset()}
	case 9:
		return []string{"SETRANGE", k, g.pick("0", "1", "3", "10", "-1", "536870912", "x"), g.pick("", "ab", "xyz", "\x00")}
	case 10:
		cmd := []string{"MSETNX"}
		for range 1 + r.IntN(3) {
			cmd = append(cmd, g.key(), g.strValue())
		}
		if r.IntN(10) == 0 {
			cmd = cmd[:len(cmd)-1]
		}
		return cmd
	case 11, 12:
		return []string{"INCRBYFLOAT", k, g.pick("1", "0.1", "-0.1", "1.5", "3.0e3", "1e400", "-1e400", "inf",
			"abc", "", " 1", "0x10", "1e-20", "100000000000000000000", "5.0e-1", "-1.1", "10.50", "1e4000", "-1e4000")}
	case 13:
		cmd := []string{"LCS", g.key(), g.key()}
		for range r.IntN(4) {
			switch opt := g.pick("LEN", "IDX", "WITHMATCHLEN", "MINMATCHLEN", "minmatchlen", "BAD"); opt {
			case "MINMATCHLEN", "minmatchlen":
				cmd = append(cmd, opt, g.pick("0", "1", "2", "4", "-1", "x"))
			default:
				cmd = append(cmd, opt)
			}
		}
		return cmd
	case 14, 15:
		return []string{"SETBIT", k, g.pick("0", "1", "7", "8", "9", "23", "100", "-1", "4294967296", "x"), g.pick("0", "1", "1", "2", "-1", "x")}
	case 16:
		return []string{"GETBIT", k, g.pick("0", "1", "7", "8", "23", "100000", "-1", "4294967296", "x")}
	case 17, 18:
		cmd := []string{"BITCOUNT", k}
		if n := r.IntN(4); n >= 1 {
			cmd = append(cmd, g.strOffset())
			if n >= 2 {
				cmd = append(cmd, g.strOffset())
			}
			if n >= 3 {
				cmd = append(cmd, g.pick("BIT", "BYTE", "bit", "BAD"))
			}
		}
		return cmd
	case 19, 20:
		cmd := []string{"BITPOS", k, g.pick("0", "1", "1", "0", "2", "-1", "x")}
		if n := r.IntN(5); n >= 1 {
			cmd = append(cmd, g.strOffset())
			if n >= 2 {
				cmd = append(cmd, g.strOffset())
			}
			if n >= 3 {
				cmd = append(cmd, g.pick("BIT", "BYTE", "bit", "BAD"))
			}
			if n == 4 {
				cmd = append(cmd, "BIT")
			}
		}
		return cmd
	default:
		cmd := []string{"BITOP", g.pick("AND", "OR", "XOR", "NOT", "and", "BAD"), g.key()}
		for range 1 + r.IntN(3) {
			cmd = append(cmd, g.key())
		}
		return cmd
	}
}
