package conform

import (
	"slices"
	"strings"
)

// stringChecks are the checks of the string commands chapter 27 adds.
func stringChecks() []Check {
	return slices.Concat(stringSetChecks(), stringValueChecks(), stringTypeChecks("the string commands", "GETEX", "GETDEL", "GETRANGE 0 1", "SETRANGE 0 x", "INCRBYFLOAT 1", "GETSET v", "SET v GET"))
}

// stringSetChecks are the checks of SET's options and of the commands
// that are SET with options fixed, GETEX and GETDEL.
func stringSetChecks() []Check {
	// The keys of the checks below that are only steps.
	k, n := "conform:set19", "conform:set19n"
	g := "conform:getex19"
	return []Check{
		{
			Name:    "SET's options: NX, XX, GET, EX, PX, EXAT, PXAT, KEEPTTL, and the commands that are SET with options fixed",
			Section: section27("Strings", "SET and its kin"),
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
			Section: section27("Strings", "SET and its kin"),
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

// stringValueChecks are the checks of the commands that change part of
// a string or add to it: GETRANGE, SETRANGE, MSETNX and INCRBYFLOAT.
func stringValueChecks() []Check {
	// The keys of the checks below that are only steps.
	k, a, b := "conform:range19", "conform:range19a", "conform:range19b"
	f := "conform:float19"
	return []Check{
		{
			Name:    "GETRANGE, SETRANGE and MSETNX",
			Section: section27("Strings", "ranges"),
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
			Section: section27("Strings", "INCRBYFLOAT"),
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

// stringTypeChecks is the check that every command of cmds (each its
// name and its arguments after the key), what the check calls them,
// refuses a key of another type.
func stringTypeChecks(what string, cmds ...string) []Check {
	// The key of the check below, which is only steps.
	z := "conform:wrong19"
	steps := []respStep{ex(integer(1), "ZADD", z, "1", "m")}
	for _, cmd := range cmds {
		f := strings.Fields(cmd)
		steps = append(steps, ex(wrongType, append([]string{f[0], z}, f[1:]...)...))
	}
	steps = append(steps, ex(integer(1), "ZCARD", z), ex(integer(1), "DEL", z))
	return []Check{
		{
			Name:    what + " refuse a key of another type, and change nothing",
			Section: section27("Strings", "SET and its kin"),
			Run:     freshSteps([]string{z}, steps...),
		},
	}
}
