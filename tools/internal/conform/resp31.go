package conform

import "slices"

// resp31Checks are chapter 31's checks: every range of a sorted set, the
// pops and ZMSCORE.
func resp31Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(zsetRangeChecks(), zsetPopChecks(), []Check{{
		Name: "not checked: what chapter 31 does not claim",
		Skip: "the blocking pops' wait (BZPOPMIN, BZPOPMAX, BZMPOP on empty keys), the set algebra, ZRANDMEMBER, ZSCAN (chapter 32) and Redis's other families (ch31_zranges/README.md)",
	}})
}

// section31 points a check at the part of chapter 31's README on topic.
func section31(topic string) string {
	return "beyond the book: " + topic + " (ch31_zranges/README.md)"
}

// zsetPopChecks are the checks of chapter 31's pops and ZMSCORE.
func zsetPopChecks() []Check {
	// The keys of the checks below that are only steps.
	z, y, s := "conform:zp", "conform:zp2", "conform:zps"
	return []Check{
		{
			Name:    "sorted sets: ZPOPMIN, ZPOPMAX and ZMPOP take members from either end",
			Section: section31("Pops: a range of one end, taken"),
			Hint:    "ZPOPMIN/ZPOPMAX answer [member, score] pairs flat in RESP2, lowest (highest) first, an empty array for no key or a count of 0; a negative count is out of range; the key goes with its last member; ZMPOP answers [key, [[member, score], ...]] from the first key that has members, or a null array",
			Run: freshSteps([]string{z, y, s},
				ex(integer(4), "ZADD", z, "1", "a", "2", "b", "3", "c", "-inf", "d"),
				ex(okReply, "SET", s, "v"),
				ex(bulks("d", "-inf"), "ZPOPMIN", z),
				ex(bulks("c", "3", "b", "2"), "ZPOPMAX", z, "2"),
				ex(bulks(), "ZPOPMIN", z, "0"),
				ex("-ERR value is out of range, must be positive\r\n", "ZPOPMIN", z, "-1"),
				ex(syntaxErr, "ZPOPMIN", z, "1", "2"),
				ex(bulks(), "ZPOPMIN", "conform:zpnone"),
				ex(wrongType, "ZPOPMAX", s),
				ex(bulks("a", "1"), "ZPOPMIN", z, "10"),
				ex(integer(0), "EXISTS", z),
				ex(integer(2), "ZADD", y, "5", "x", "6", "w"),
				ex(array(bulk(y), array(bulks("w", "6"), bulks("x", "5"))), "ZMPOP", "2", z, y, "MAX", "COUNT", "5"),
				ex(nullArray, "ZMPOP", "2", z, y, "MIN"),
				ex(wrongType, "ZMPOP", "2", z, s, "MIN"),
				ex("-ERR numkeys should be greater than 0\r\n", "ZMPOP", "0", z, "MIN"),
				ex("-ERR count should be greater than 0\r\n", "ZMPOP", "1", z, "MIN", "COUNT", "0"),
				ex(syntaxErr, "ZMPOP", "1", z, "SIDEWAYS"),
				ex(syntaxErr, "ZMPOP", "2", z, "MIN"),
				ex(integer(1), "DEL", s),
			),
		},
		{
			Name:    "sorted sets: ZMSCORE",
			Section: section31("Pops: a range of one end, taken"),
			Hint:    "ZMSCORE answers a score or null per member, every one null for no key",
			Run: freshSteps([]string{z, s},
				ex(integer(3), "ZADD", z, "1", "a", "2.5", "b", "-inf", "c"),
				ex(okReply, "SET", s, "v"),
				ex(array(bulk("1"), nullBulk, bulk("-inf")), "ZMSCORE", z, "a", "x", "c"),
				ex(array(nullBulk), "ZMSCORE", "conform:zmnone", "a"),
				ex(wrongType, "ZMSCORE", s, "a"),
				ex(integer(2), "DEL", z, s),
			),
		},
	}
}
