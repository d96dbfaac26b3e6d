package conform

// The everyday hash and sorted-set commands chapter 30 adds: HMGET, and
// the sorted sets' ranks and counts, as Redis 7.0 answers them.

// everydayHashZSetChecks are the checks of HMGET and the everyday sorted-set
// commands.
func everydayHashZSetChecks() []Check {
	h, s := "conform:mh", "conform:ms"
	return append([]Check{{
		Name:    "HMGET",
		Section: section30("", "HMGET"),
		Hint:    "HMGET answers one element per field, the null bulk string for a missing field or key",
		Run: freshSteps([]string{h, s},
			ex(integer(2), "HSET", h, "f", "v", "g", ""),
			ex(okReply, "SET", s, "x"),
			ex(array(bulk("v"), nullBulk, bulk(""), bulk("v")), "HMGET", h, "f", "x", "g", "f"),
			ex(array(nullBulk, nullBulk), "HMGET", "conform:mnone", "f", "g"),
			ex(wrongType, "HMGET", s, "f"),
			ex(arity("hmget"), "HMGET", h),
			ex(integer(2), "DEL", h, s),
		),
	}}, everydayZSetChecks()...)
}

// everydayZSetChecks are the checks of ZRANK, ZREVRANK, ZCOUNT, ZINCRBY,
// ZREVRANGE and ZRANGE's REV.
func everydayZSetChecks() []Check {
	// The keys of the checks below that are only steps.
	z, s := "conform:zr", "conform:zrs"
	return []Check{
		{
			Name:    "sorted sets: ZRANK, ZREVRANK, ZCOUNT with exclusive bounds, ZINCRBY, ZREVRANGE, ZRANGE ... REV",
			Section: section30("", "sorted sets"),
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
