package conform

import (
	"slices"
	"strings"
)

// stringChecks19 are the checks of the string commands chapter 28 adds.
func stringChecks19() []Check {
	return slices.Concat(stringSetChecks19(), stringValueChecks19(), stringBitChecks19(), stringTypeChecks19())
}

// stringSetChecks19 are the checks of SET's options and of the commands
// that are SET with options fixed, GETEX and GETDEL.
func stringSetChecks19() []Check {
	// The keys of the checks below that are only steps.
	k, n := "conform:set19", "conform:set19n"
	g := "conform:getex19"
	return []Check{
		{
			Name:    "SET's options: NX, XX, GET, EX, PX, EXAT, PXAT, KEEPTTL, and the commands that are SET with options fixed",
			Section: section19("Strings", "SET and its kin"),
			Hint:    "one grammar for SET and GETEX: NX and XX exclude each other, one expiry form (a time form may repeat, the last counting); an absolute time in the past leaves no key; SETEX and PSETEX are SET with EX or PX, SETNX is SET NX answering 1 or 0, GETSET is SET GET",
			Run: freshSteps([]string{k, n},
				ex(okReply, "SET", k, "v", "NX"),
				ex(nullBulk, "SET", k, "w", "NX"),
				ex(bulk("v"), "SET", k, "w", "NX", "GET"),
				ex(nullBulk, "SET", n, "w", "XX"),
				ex(bulk("v"), "SET", k, "w", "GET", "EX", "100"),
				ex(okReply, "SET", k, "x", "KEEPTTL"),
				ex(integer(100), "TTL", k),
				ex(okReply, "SET", k, "v", "PXAT", "1"),
				ex(integer(0), "EXISTS", k),
				ex(syntaxErr, "SET", k, "v", "EX", "1", "PXAT", "1"),
				ex(syntaxErr, "SET", k, "v", "NX", "XX"),
				ex(syntaxErr, "SET", k, "v", "EXAT"),
				ex("-ERR invalid expire time in 'set' command\r\n", "SET", k, "v", "EXAT", "0"),
				ex(notInt, "SET", k, "v", "PX", "soon"),
				ex("-ERR invalid expire time in 'setex' command\r\n", "SETEX", k, "-1", "v"),
				ex(okReply, "PSETEX", k, "100000", "v"),
				ex(integer(100), "TTL", k),
				ex(integer(0), "SETNX", k, "w"),
				ex(bulk("v"), "GETSET", k, "w"),
				ex(integer(-1), "TTL", k),
				ex(integer(1), "DEL", k),
			),
		},
		{
			Name:    "GETEX sets or drops a string's expiry as it answers it; GETDEL deletes it",
			Section: section19("Strings", "SET and its kin"),
			Hint:    "GETEX takes EX, PX, EXAT, PXAT or PERSIST (not SET's NX, XX, GET or KEEPTTL); a missing key answers null before the time is read",
			Run: freshSteps([]string{g},
				ex(nullBulk, "GETEX", g, "EX", "0"),
				ex(okReply, "SET", g, "v"),
				ex(bulk("v"), "GETEX", g, "EX", "100"),
				ex(integer(100), "TTL", g),
				ex(bulk("v"), "GETEX", g, "PERSIST"),
				ex(integer(-1), "TTL", g),
				ex(syntaxErr, "GETEX", g, "KEEPTTL"),
				ex("-ERR invalid expire time in 'getex' command\r\n", "GETEX", g, "PX", "-1"),
				ex(bulk("v"), "GETDEL", g),
				ex(nullBulk, "GETDEL", g),
			),
		},
	}
}

// stringValueChecks19 are the checks of the commands that change part of
// a string or add to it: GETRANGE, SETRANGE, MSETNX and INCRBYFLOAT.
func stringValueChecks19() []Check {
	// The keys of the checks below that are only steps.
	k, a, b := "conform:range19", "conform:range19a", "conform:range19b"
	f := "conform:float19"
	return []Check{
		{
			Name:    "GETRANGE, SETRANGE and MSETNX",
			Section: section19("Strings", "ranges"),
			Hint:    "a range's ends count back from the end when negative, then are clamped to the string; SETRANGE pads with zero bytes and refuses a negative offset; MSETNX sets all its keys or none",
			Run: freshSteps([]string{k, a, b},
				ex(bulk(""), "GETRANGE", k, "0", "-1"),
				ex(integer(5), "SETRANGE", k, "3", "ab"),
				ex(bulk("\x00\x00\x00ab"), "GET", k),
				ex(okReply, "SET", k, "Hello"),
				ex(bulk("llo"), "GETRANGE", k, "-3", "-1"),
				ex(bulk(""), "GETRANGE", k, "-10", "-20"),
				ex(bulk("He"), "SUBSTR", k, "-100", "1"),
				ex("-ERR offset is out of range\r\n", "SETRANGE", k, "-1", "x"),
				ex(integer(1), "MSETNX", a, "1", b, "2"),
				ex(integer(0), "MSETNX", b, "3", k, "4"),
				ex(bulk("2"), "GET", b),
				ex(integer(3), "DEL", k, a, b),
			),
		},
		{
			Name:    "INCRBYFLOAT adds in long double and prints the sum as Redis does",
			Section: section19("Strings", "INCRBYFLOAT"),
			Hint:    "Redis adds in C's long double (80-bit on x86-64) and prints \"%.17Lf\" without its trailing zeros; a sum that is not finite is refused",
			Run: freshSteps([]string{f},
				ex(bulk("10.5"), "INCRBYFLOAT", f, "10.50"),
				ex(bulk("10.6"), "INCRBYFLOAT", f, "0.1"),
				ex(bulk("-4989.39999999999999991"), "INCRBYFLOAT", f, "-5.0e3"),
				ex(okReply, "SET", f, "1e30"),
				ex(bulk("1000000000000000000024696061952"), "INCRBYFLOAT", f, "0"),
				ex("-ERR increment would produce NaN or Infinity\r\n", "INCRBYFLOAT", f, "inf"),
				ex("-ERR value is not a valid float\r\n", "INCRBYFLOAT", f, "1e5000"),
				ex(integer(1), "DEL", f),
			),
		},
	}
}

// stringBitChecks19 are the checks of the commands that work on a
// string's bits, and of LCS.
func stringBitChecks19() []Check {
	// The keys of the checks below that are only steps.
	k, d := "conform:bits19", "conform:bits19d"
	return []Check{
		{
			Name:    "the bit commands: SETBIT, GETBIT, BITCOUNT and BITPOS in bytes and bits, BITOP",
			Section: section19("Strings", "bits"),
			Hint:    "bit 0 is the first byte's highest; a range in bits counts only its own bits of the bytes at its ends; BITPOS looking for 0 without an end counts the zeros past the string; BITOP pads with zeros, and deletes its destination for an empty result",
			Run: freshSteps([]string{k, d},
				ex(integer(0), "SETBIT", k, "7", "1"),
				ex(integer(1), "SETBIT", k, "7", "0"),
				ex(integer(0), "SETBIT", k, "23", "1"),
				ex(bulk("\x00\x00\x01"), "GET", k),
				ex(integer(1), "GETBIT", k, "23"),
				ex("-ERR bit offset is not an integer or out of range\r\n", "SETBIT", k, "4294967296", "1"),
				ex("-ERR bit is not an integer or out of range\r\n", "SETBIT", k, "0", "2"),
				ex(okReply, "SET", k, "foobar"),
				ex(integer(26), "BITCOUNT", k),
				ex(integer(17), "BITCOUNT", k, "5", "30", "BIT"),
				ex(syntaxErr, "BITCOUNT", k, "0", "1", "WORD"),
				// A span of several words whose ends cut into bytes.
				ex(okReply, "SET", k, "the quick brown fox jumps over the lazy dog"),
				ex(integer(30), "BITCOUNT", k, "3", "68", "BIT"),
				ex(okReply, "SET", k, "\xff\xf0\x00"),
				ex(integer(12), "BITPOS", k, "0"),
				ex(integer(7), "BITPOS", k, "1", "7", "15", "BIT"),
				ex(integer(-1), "BITPOS", k, "0", "0", "7", "BIT"),
				ex(integer(3), "BITOP", "NOT", d, k),
				ex(bulk("\x00\x0f\xff"), "GET", d),
				ex("-ERR BITOP NOT must be called with a single source key.\r\n", "BITOP", "NOT", d, k, k),
				ex(integer(0), "BITOP", "OR", d, "conform:bits19none"),
				ex(integer(0), "EXISTS", d),
				ex(integer(1), "DEL", k),
			),
		},
		{
			Name:    "LCS: the subsequence, LEN, and IDX with MINMATCHLEN and WITHMATCHLEN",
			Section: section19("Strings", "LCS"),
			Hint:    "the ranges come from the end of the strings back, each as [start end] in the first string and in the second",
			Run: dialed(func(e *Env, c *Conn) error {
				a, b := c.fresh("conform:lcs19a"), c.fresh("conform:lcs19b")
				idx := "*4\r\n" + bulk("matches") + "*1\r\n*3\r\n" + array(integer(4), integer(7)) +
					array(integer(5), integer(8)) + integer(4) + bulk("len") + integer(6)
				return c.steps(
					ex(okReply, "MSET", a, "ohmytext", b, "mynewtext"),
					ex(bulk("mytext"), "LCS", a, b),
					ex(integer(6), "LCS", a, b, "LEN"),
					ex(idx, "LCS", a, b, "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
					ex("-ERR If you want both the length and indexes, please just use IDX.\r\n", "LCS", a, b, "IDX", "LEN"),
					ex(integer(2), "DEL", a, b),
				)
			}),
		},
	}
}

// stringTypeChecks19 is the check that every string command refuses a
// key of another type.
func stringTypeChecks19() []Check {
	// The key of the check below, which is only steps.
	z := "conform:wrong19"
	steps := []respStep{ex(integer(1), "ZADD", z, "1", "m")}
	for _, cmd := range []string{"GETEX", "GETDEL", "GETRANGE 0 1", "SETRANGE 0 x", "INCRBYFLOAT 1",
		"SETBIT 0 1", "GETBIT 0", "BITCOUNT", "BITPOS 1", "GETSET v", "SET v GET"} {
		f := strings.Fields(cmd)
		steps = append(steps, ex(wrongType, append([]string{f[0], z}, f[1:]...)...))
	}
	steps = append(steps, ex(integer(1), "ZCARD", z), ex(integer(1), "DEL", z))
	return []Check{
		{
			Name:    "the string commands refuse a key of another type, and change nothing",
			Section: section19("Strings", "SET and its kin"),
			Run:     freshSteps([]string{z}, steps...),
		},
	}
}
