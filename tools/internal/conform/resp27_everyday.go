package conform

import "slices"

// The everyday string commands clients send besides SCAN, transactions
// and INFO: the counters, MGET, MSET and STRLEN, as Redis 7.0 answers
// them. They are chapter 27's, the first of the chapters that grow the
// command set (the hashes' HMGET and the sorted sets' ranks are chapter
// 30's, resp30_everyday.go).

// everydayStringChecks are the checks of INCR and its kin, MGET, MSET
// and STRLEN.
func everydayStringChecks() []Check {
	// The keys of the checks below that are only steps.
	n, ns, nz := "conform:n", "conform:ns", "conform:nz"
	a, b, h, z := "conform:ma", "conform:mb", "conform:mh", "conform:mz"
	return []Check{
		{
			Name:    "INCR, INCRBY, DECR, DECRBY: values, a missing key as 0, the TTL kept; not an integer, overflow",
			Section: section27("", "INCR and DECR"),
			Hint:    "the value must be a 64-bit decimal integer exactly as Redis prints one (no sign +, no spaces, no leading zeros); a result outside 64 bits is ERR increment or decrement would overflow (DECRBY of -2^63 is ERR decrement would overflow), and changes nothing; the key keeps its TTL",
			Run: freshSteps([]string{n, ns, nz}, slices.Concat([]respStep{
				ex(integer(1), "INCR", n),
				ex(integer(11), "INCRBY", n, "10"),
				ex(integer(6), "INCRBY", n, "-5"),
				ex(integer(5), "DECR", n),
				ex(integer(2), "DECRBY", n, "3"),
				ex(integer(-1), "DECRBY", n, "3"),
				ex(bulk("-1"), "GET", n),
				ex(integer(1), "DEL", n),
				ex(integer(-4), "DECRBY", n, "4"),
				ex(okReply, "SET", n, "5", "EX", "1000"),
				ex(integer(6), "INCR", n),
				because("INCR keeps the key's TTL", intIn(990, 1000, "TTL", n)),
				ex(okReply, "SET", n, "9223372036854775806"),
				ex(integer(9223372036854775807), "INCR", n),
				ex(overflow, "INCR", n),
				ex(overflow, "INCRBY", n, "1"),
				ex(integer(9223372036854775807), "INCRBY", n, "0"),
				ex(okReply, "SET", n, "-9223372036854775808"),
				ex(overflow, "DECR", n),
				ex(overflow, "INCRBY", n, "-1"),
				ex(okReply, "SET", n, "5"),
				ex("-ERR decrement would overflow\r\n", "DECRBY", n, "-9223372036854775808"),
				ex(overflow, "INCRBY", n, "9223372036854775807"),
				ex(notInt, "INCRBY", n, "9223372036854775808"),
				ex(notInt, "INCRBY", n, "x"),
				ex(notInt, "INCRBY", n, "1.5"),
				ex(notInt, "INCRBY", n, "+2"),
				ex(notInt, "INCRBY", n, "02"),
				ex(notInt, "DECRBY", n, "-0"),
				ex(notInt, "DECRBY", n, ""),
				ex(bulk("5"), "GET", n),
			}, notCounterSteps(ns), []respStep{
				ex(integer(1), "ZADD", nz, "1", "m"),
				ex(wrongType, "INCR", nz),
				ex(wrongType, "DECRBY", nz, "1"),
				ex(arity("incr"), "INCR"),
				ex(arity("incrby"), "INCRBY", n),
				ex(arity("decr"), "DECR", n, "1"),
				ex(arity("decrby"), "DECRBY", n),
				ex(integer(3), "DEL", n, ns, nz),
			})...),
		},
		{
			Name:    "MGET, MSET, STRLEN",
			Section: section27("", "MGET, MSET, STRLEN"),
			Hint:    "MGET answers one element per key, the null bulk string for a missing key or one that is not a string; MSET takes key value pairs (an odd count is a wrong number of arguments) and answers +OK; STRLEN is 0 for a missing key",
			Run: freshSteps([]string{a, b, h, z},
				ex(okReply, "MSET", a, "1", b, "two"),
				ex(okReply, "MSET", a, "one", a, "uno"),
				ex(integer(1), "ZADD", z, "1", "m"),
				ex(integer(2), "HSET", h, "f", "v", "g", ""),
				ex(array(bulk("uno"), bulk("two"), nullBulk, nullBulk, nullBulk, bulk("uno")), "MGET", a, b, "conform:mnone", z, h, a),
				ex(arity("mset"), "MSET", a, "1", b),
				ex(arity("mset"), "MSET"),
				ex(arity("mget"), "MGET"),
				ex(bulk("uno"), "GET", a),
				ex(integer(3), "STRLEN", a),
				ex(integer(0), "STRLEN", "conform:mnone"),
				ex(wrongType, "STRLEN", z),
				ex(arity("strlen"), "STRLEN"),
				ex(integer(4), "DEL", a, b, h, z),
			),
		},
	}
}

// notCounterSteps sets s to values that are not integers as Redis reads
// them, and checks that INCR and DECRBY refuse each and leave it as it was.
func notCounterSteps(s string) []respStep {
	var out []respStep
	for _, bad := range []string{"abc", "1.5", " 5", "5 ", "+5", "05", "", "99999999999999999999"} {
		out = append(out, ex(okReply, "SET", s, bad), ex(notInt, "INCR", s), ex(notInt, "DECRBY", s, "1"), ex(bulk(bad), "GET", s))
	}
	return out
}
