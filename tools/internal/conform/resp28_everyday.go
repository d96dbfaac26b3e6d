package conform

import "slices"

// The everyday commands clients send besides SCAN, transactions and INFO:
// the counters, MGET, MSET, STRLEN, HMGET and the sorted sets' ranks and
// counts, as Redis 7.0 answers them. They are chapter 28's, the first of
// the chapters that grow the command set.

// everydayChecks19 are the checks of the everyday string, hash and
// sorted-set commands.
func everydayChecks19() []Check {
	return slices.Concat(everydayStringChecks19(), everydayZSetChecks19())
}

// everydayStringChecks19 are the checks of INCR and its kin, MGET, MSET,
// STRLEN and HMGET.
func everydayStringChecks19() []Check {
	// The keys of the checks below that are only steps.
	n, ns, nz := "conform:n", "conform:ns", "conform:nz"
	a, b, h, z := "conform:ma", "conform:mb", "conform:mh", "conform:mz"
	return []Check{
		{
			Name:    "INCR, INCRBY, DECR, DECRBY: values, a missing key as 0, the TTL kept; not an integer, overflow",
			Section: section19("", "INCR and DECR"),
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
			Name:    "MGET, MSET, STRLEN, HMGET",
			Section: section19("", "MGET, MSET, STRLEN, HMGET"),
			Hint:    "MGET answers one element per key, the null bulk string for a missing key or one that is not a string; MSET takes key value pairs (an odd count is a wrong number of arguments) and answers +OK; STRLEN is 0 for a missing key; HMGET answers one element per field",
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
				ex(array(bulk("v"), nullBulk, bulk(""), bulk("v")), "HMGET", h, "f", "x", "g", "f"),
				ex(array(nullBulk, nullBulk), "HMGET", "conform:mnone", "f", "g"),
				ex(wrongType, "HMGET", a, "f"),
				ex(arity("hmget"), "HMGET", h),
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

// everydayZSetChecks19 are the checks of ZRANK, ZREVRANK, ZCOUNT, ZINCRBY,
// ZREVRANGE and ZRANGE's REV.
func everydayZSetChecks19() []Check {
	// The keys of the checks below that are only steps.
	z, s := "conform:zr", "conform:zrs"
	return []Check{
		{
			Name:    "sorted sets: ZRANK, ZREVRANK, ZCOUNT with exclusive bounds, ZINCRBY, ZREVRANGE, ZRANGE ... REV",
			Section: section19("", "sorted sets"),
			Hint:    "ranks count from 0 in score order (ties by member), from the highest for ZREVRANK and REV; ( makes a score bound exclusive; ZRANGE ... BYSCORE REV takes the range as max then min; ZINCRBY answers the new score as a bulk string and a missing member starts at 0",
			Run: freshSteps([]string{z, s},
				ex(integer(4), "ZADD", z, "1", "a", "2", "b", "3", "c", "3", "d"),
				ex(okReply, "SET", s, "v"),
				ex(integer(0), "ZRANK", z, "a"),
				ex(integer(3), "ZRANK", z, "d"),
				ex(integer(2), "ZRANK", z, "c"),
				ex(integer(3), "ZREVRANK", z, "a"),
				ex(integer(0), "ZREVRANK", z, "d"),
				ex(nullBulk, "ZRANK", z, "x"),
				ex(nullBulk, "ZREVRANK", "conform:zrnone", "a"),
				ex(wrongType, "ZRANK", s, "a"),
				ex(arity("zrank"), "ZRANK", z),
				ex(integer(4), "ZCOUNT", z, "1", "3"),
				ex(integer(3), "ZCOUNT", z, "(1", "3"),
				ex(integer(1), "ZCOUNT", z, "(1", "(3"),
				ex(integer(0), "ZCOUNT", z, "(3", "3"),
				ex(integer(0), "ZCOUNT", z, "3", "(3"),
				ex(integer(4), "ZCOUNT", z, "-inf", "+inf"),
				ex(integer(0), "ZCOUNT", z, "3", "1"),
				ex(integer(0), "ZCOUNT", "conform:zrnone", "0", "1"),
				ex(notFloatMM, "ZCOUNT", z, "x", "1"),
				ex(notFloatMM, "ZCOUNT", z, "[1", "2"),
				ex(wrongType, "ZCOUNT", s, "0", "1"),
				ex(arity("zcount"), "ZCOUNT", z, "1"),
				ex(bulk("2.5"), "ZINCRBY", z, "1.5", "a"),
				ex(bulk("-1"), "ZINCRBY", z, "-1", "new"),
				ex(integer(2), "ZRANK", z, "a"),
				ex(notFloat, "ZINCRBY", z, "x", "a"),
				ex(bulk("inf"), "ZINCRBY", z, "inf", "c"),
				ex("-ERR resulting score is not a number (NaN)\r\n", "ZINCRBY", z, "-inf", "c"),
				ex(bulk("inf"), "ZSCORE", z, "c"),
				ex(wrongType, "ZINCRBY", s, "1", "a"),
				ex(arity("zincrby"), "ZINCRBY", z, "1"),
				ex(bulks("c", "d", "a", "b", "new"), "ZREVRANGE", z, "0", "-1"),
				ex(bulks("c", "inf", "d", "3"), "ZREVRANGE", z, "0", "1", "WITHSCORES"),
				ex(bulks("b", "new"), "ZREVRANGE", z, "-2", "-1"),
				ex(bulks(), "ZREVRANGE", z, "5", "10"),
				ex(arity("zrevrange"), "ZREVRANGE", z, "0"),
				ex(bulks("c", "d", "a", "b", "new"), "ZRANGE", z, "0", "-1", "REV"),
				ex(bulks("d", "3", "a", "2.5"), "ZRANGE", z, "1", "2", "REV", "WITHSCORES"),
				ex(bulks("d", "a"), "ZRANGE", z, "(inf", "(2", "BYSCORE", "REV"),
				ex(bulks("a", "b"), "ZRANGE", z, "3", "0", "BYSCORE", "REV", "LIMIT", "1", "2"),
				ex(bulks(), "ZRANGE", z, "0", "3", "BYSCORE", "REV"),
				ex(integer(2), "DEL", z, s),
			),
		},
	}
}
