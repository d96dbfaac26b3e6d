package conform

// Redis's texts for a bad range.
const (
	notFloatRange = "-ERR min or max is not a float\r\n"
	notLexRange   = "-ERR min or max not valid string range item\r\n"
)

// zsetRangeChecks are the checks of chapter 31's ranges: every form of
// ZRANGE, the older range commands, ZRANGESTORE, ZLEXCOUNT and the
// removals of a range.
func zsetRangeChecks() []Check {
	// The keys of the checks below that are only steps.
	z, l, s := "conform:rz", "conform:rl", "conform:rs"
	tz, tl, td, ts := "conform:rz{t}", "conform:rl{t}", "conform:rd{t}", "conform:rs{t}"
	return []Check{
		{
			Name:    "sorted sets: ZRANGE BYSCORE and BYLEX, REV, LIMIT; ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX",
			Section: section31("Ranges: by rank, score and lex"),
			Hint:    "REV takes a range of scores or names as max then min; LIMIT offset count skips offset members and takes count (all when negative) and is refused by rank; [ and ( make a name inclusive or exclusive, - and + are the ends; the older commands fix the kind and direction their names say, so REV is a syntax error there",
			Run: freshSteps([]string{z, l, s},
				ex(integer(5), "ZADD", z, "1", "a", "2", "b", "2", "c", "3", "d", "5", "e"),
				ex(integer(5), "ZADD", l, "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"),
				ex(okReply, "SET", s, "v"),
				ex(bulks("b", "c", "d"), "ZRANGE", z, "(1", "3", "BYSCORE"),
				ex(bulks("c", "d"), "ZRANGE", z, "(1", "+inf", "BYSCORE", "LIMIT", "1", "2"),
				ex(bulks("d", "c", "b"), "ZRANGE", z, "(5", "2", "BYSCORE", "REV"),
				ex(bulks("e", "5", "d", "3"), "ZRANGE", z, "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "0", "2", "WITHSCORES"),
				ex(bulks(), "ZRANGE", z, "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "2"),
				ex(bulks("b", "c", "d", "e"), "ZRANGE", z, "-inf", "+inf", "BYSCORE", "LIMIT", "1", "-5"),
				ex(bulks("b", "c", "d"), "ZRANGE", l, "[b", "[d", "BYLEX"),
				ex(bulks("c"), "ZRANGE", l, "(b", "(d", "BYLEX"),
				ex(bulks("e", "d"), "ZRANGE", l, "+", "(c", "BYLEX", "REV"),
				ex(bulks("b", "c"), "ZRANGE", l, "-", "+", "BYLEX", "LIMIT", "1", "2"),
				ex(bulks(), "ZRANGE", l, "[d", "[b", "BYLEX"),
				ex(bulks("a", "1", "b", "2"), "ZRANGEBYSCORE", z, "-inf", "2", "WITHSCORES", "LIMIT", "0", "2"),
				ex(bulks("e", "d"), "ZREVRANGEBYSCORE", z, "+inf", "(2"),
				ex(bulks("a", "b"), "ZRANGEBYLEX", l, "-", "(c"),
				ex(bulks("e", "d", "c"), "ZREVRANGEBYLEX", l, "+", "[c"),
				ex(syntaxErr, "ZRANGEBYSCORE", z, "0", "1", "REV"),
				ex(syntaxErr, "ZREVRANGE", z, "0", "1", "REV"),
				ex(syntaxErr, "ZRANGE", z, "0", "1", "BYSCORE", "BYLEX"),
				ex(syntaxErr, "ZRANGE", z, "0", "1", "LIMIT", "1"),
				ex("-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n", "ZRANGE", z, "0", "1", "LIMIT", "0", "1"),
				ex("-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n", "ZRANGEBYLEX", l, "-", "+", "WITHSCORES"),
				ex(notInt, "ZRANGE", z, "0", "1", "BYSCORE", "LIMIT", "x", "1"),
				ex(notFloatRange, "ZRANGEBYSCORE", z, "x", "1"),
				ex(notLexRange, "ZRANGEBYLEX", l, "a", "+"),
				ex(notLexRange, "ZRANGE", l, "-", "+x", "BYLEX"),
				ex(wrongType, "ZRANGEBYLEX", s, "-", "+"),
				ex(bulks(), "ZRANGEBYSCORE", "conform:rnone", "-inf", "+inf"),
				ex(arity("zrangebyscore"), "ZRANGEBYSCORE", z, "0"),
				ex(integer(3), "DEL", z, l, s),
			),
		},
		{
			Name:    "sorted sets: ZRANGESTORE, ZLEXCOUNT, ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX",
			Section: section31("Ranges: by rank, score and lex"),
			Hint:    "ZRANGESTORE dst src takes ZRANGE's range and options but WITHSCORES, replaces dst whatever it held and answers how many it stored, deleting dst for an empty range; ZLEXCOUNT counts a range of names; the removals answer how many went and delete a set they empty",
			Run: freshSteps([]string{tz, tl, td, ts},
				ex(integer(5), "ZADD", tz, "1", "a", "2", "b", "2", "c", "3", "d", "5", "e"),
				ex(integer(5), "ZADD", tl, "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"),
				ex(okReply, "SET", td, "v"),
				ex(okReply, "SET", ts, "v"),
				ex(integer(2), "ZRANGESTORE", td, tz, "(2", "+inf", "BYSCORE"),
				ex(bulks("d", "3", "e", "5"), "ZRANGE", td, "0", "-1", "WITHSCORES"),
				ex(integer(2), "ZRANGESTORE", td, tl, "[d", "-", "BYLEX", "REV", "LIMIT", "1", "2"),
				ex(bulks("b", "c"), "ZRANGE", td, "0", "-1"),
				ex(integer(0), "ZRANGESTORE", td, tz, "5", "10"),
				ex(integer(0), "EXISTS", td),
				ex(syntaxErr, "ZRANGESTORE", td, tz, "0", "-1", "WITHSCORES"),
				ex(wrongType, "ZRANGESTORE", td, ts, "0", "-1"),
				ex(arity("zrangestore"), "ZRANGESTORE", td, tz, "0"),
				ex(integer(5), "ZLEXCOUNT", tl, "-", "+"),
				ex(integer(2), "ZLEXCOUNT", tl, "(b", "[d"),
				ex(integer(0), "ZLEXCOUNT", tl, "+", "-"),
				ex(integer(0), "ZLEXCOUNT", "conform:rnone", "-", "+"),
				ex(notLexRange, "ZLEXCOUNT", tl, "b", "+"),
				ex(integer(2), "ZREMRANGEBYRANK", tz, "-2", "-1"),
				ex(integer(2), "ZREMRANGEBYSCORE", tz, "(1", "2"),
				ex(bulks("a"), "ZRANGE", tz, "0", "-1"),
				ex(integer(2), "ZREMRANGEBYLEX", tl, "(c", "+"),
				ex(integer(1), "ZREMRANGEBYLEX", tl, "[b", "(c"),
				ex(bulks("a", "c"), "ZRANGE", tl, "0", "-1"),
				ex(integer(1), "ZREMRANGEBYSCORE", tz, "-inf", "+inf"),
				ex(integer(0), "EXISTS", tz),
				ex(notInt, "ZREMRANGEBYRANK", tl, "0", "x"),
				ex(notFloatRange, "ZREMRANGEBYSCORE", tl, "x", "1"),
				ex(wrongType, "ZREMRANGEBYLEX", ts, "-", "+"),
				ex(integer(0), "ZREMRANGEBYRANK", "conform:rnone", "0", "-1"),
				ex(integer(2), "DEL", tl, ts),
			),
		},
	}
}
