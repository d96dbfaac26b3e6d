package conform

import "strings"

// zsetAlgebraChecks are the checks of chapter 32's set algebra,
// ZRANDMEMBER and ZSCAN.
func zsetAlgebraChecks() []Check {
	// The keys of the checks below that are only steps.
	a, b, d, str := "conform:za{t}", "conform:zb{t}", "conform:zd{t}", "conform:zs{t}"
	return []Check{
		{
			Name:    "sorted sets: ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD",
			Section: section32("the set algebra, ZRANDMEMBER and ZSCAN"),
			Hint:    "WEIGHTS multiply each input's scores, 0 for 0*inf; AGGREGATE SUM (inf + -inf is 0), MIN or MAX combines them; ZDIFF keeps the first input's scores; the STORE forms replace the destination and answer the result's size, deleting it for an empty one; numkeys below 1 names the command in its error",
			Run: freshSteps([]string{a, b, d, str},
				ex(integer(3), "ZADD", a, "1", "x", "2", "y", "inf", "z"),
				ex(integer(3), "ZADD", b, "3", "x", "-inf", "z", "5", "w"),
				ex(okReply, "SET", str, "v"),
				ex(bulks("z", "0", "y", "2", "x", "4", "w", "5"), "ZUNION", "2", a, b, "WITHSCORES"),
				ex(bulks("z", "-inf", "y", "0", "x", "3", "w", "5"), "ZUNION", "2", a, b, "WEIGHTS", "0", "1", "WITHSCORES"),
				ex(bulks("z", "0", "x", "4"), "ZINTER", "2", a, b, "WITHSCORES"),
				ex(bulks("z", "-inf", "x", "1"), "ZINTER", "2", a, b, "AGGREGATE", "MIN", "WITHSCORES"),
				ex(bulks("x", "3", "z", "inf"), "ZINTER", "2", a, b, "AGGREGATE", "max", "WITHSCORES"),
				ex(bulks("y", "2"), "ZDIFF", "2", a, b, "WITHSCORES"),
				ex(bulks("x", "y", "z"), "ZDIFF", "2", a, "conform:znone{t}"),
				ex(integer(4), "ZUNIONSTORE", d, "2", a, b),
				ex(bulks("z", "y", "x", "w"), "ZRANGE", d, "0", "-1"),
				ex(integer(0), "ZINTERSTORE", d, "2", a, "conform:znone{t}"),
				ex(integer(0), "EXISTS", d),
				ex(integer(1), "ZDIFFSTORE", str, "2", a, b),
				ex(bulks("y", "2"), "ZRANGE", str, "0", "-1", "WITHSCORES"),
				ex(integer(2), "ZINTERCARD", "2", a, b),
				ex(integer(1), "ZINTERCARD", "2", a, b, "LIMIT", "1"),
				ex("-ERR LIMIT can't be negative\r\n", "ZINTERCARD", "2", a, b, "LIMIT", "-1"),
				ex("-ERR at least 1 input key is needed for 'zunionstore' command\r\n", "ZUNIONSTORE", d, "0", a),
				ex(syntaxErr, "ZUNION", "3", a, b),
				ex(syntaxErr, "ZUNION", "2", a, b, "WEIGHTS", "1"),
				ex("-ERR weight value is not a float\r\n", "ZUNION", "2", a, b, "WEIGHTS", "1", "x"),
				ex(syntaxErr, "ZUNIONSTORE", d, "2", a, b, "WITHSCORES"),
				ex(syntaxErr, "ZDIFF", "2", a, b, "AGGREGATE", "SUM"),
				ex(integer(3), "DEL", a, b, str),
			),
		},
		{
			Name:    "sorted sets: ZRANDMEMBER and ZSCAN",
			Section: section32("the set algebra, ZRANDMEMBER and ZSCAN"),
			Hint:    "ZRANDMEMBER with a count at least the set's size answers the whole set, a negative count that many picks with repeats, and refuses -2^63 and, with WITHSCORES, counts past half the range; ZSCAN answers [cursor, [member, score, ...]], scores as bulk strings, and ends at cursor 0; a small set (at most 128 members of at most 64 bytes) comes whole with cursor 0 whatever the cursor and COUNT",
			Run: dialed(func(e *Env, c *Conn) error {
				z, s := c.fresh("conform:zm"), c.fresh("conform:zms")
				if err := c.steps(
					ex(integer(3), "ZADD", z, "1", "a", "2.5", "b", "-inf", "c"),
					ex(okReply, "SET", s, "v"),
					ex(nullBulk, "ZRANDMEMBER", "conform:zmnone"),
					ex(bulks(), "ZRANDMEMBER", z, "0"),
					ex(notInt, "ZRANDMEMBER", z, "x"),
					ex(syntaxErr, "ZRANDMEMBER", z, "1", "BOGUS"),
					ex("-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n", "ZRANDMEMBER", z, "-9223372036854775808"),
					ex("-ERR value is out of range\r\n", "ZRANDMEMBER", z, "4611686018427387904", "WITHSCORES"),
					ex(array(bulk("0"), bulks("c", "-inf", "a", "1", "b", "2.5")), "ZSCAN", z, "0"),
					ex(array(bulk("0"), bulks("c", "-inf", "a", "1", "b", "2.5")), "ZSCAN", z, "0", "COUNT", "1"),
					ex(array(bulk("0"), bulks("c", "-inf", "a", "1", "b", "2.5")), "ZSCAN", z, "7", "COUNT", "1"),
					ex(array(bulk("0"), bulks("b", "2.5")), "ZSCAN", z, "0", "MATCH", "b*"),
					ex(array(bulk("0"), bulks()), "ZSCAN", "conform:zmnone", "0"),
					ex("-ERR invalid cursor\r\n", "ZSCAN", z, "x"),
					ex(syntaxErr, "ZSCAN", z, "0", "COUNT", "0"),
					ex(wrongType, "ZSCAN", s, "0"),
				); err != nil {
					return err
				}
				if err := c.CommandUnordered([]string{"a", "b", "c"}, "ZRANDMEMBER", z, "5"); err != nil {
					return err
				}
				req, got, err := c.CommandReply("ZRANDMEMBER", z, "-7")
				if err != nil {
					return err
				}
				els, ok := splitBulks(got)
				if !ok || len(els) != 7 || strings.Trim(strings.Join(els, ""), "abc") != "" {
					return &Mismatch{Request: req, Want: []byte("7 members of a, b, c, repeats allowed"), Got: got, e: c.e}
				}
				return c.CommandExpect(integer(2), "DEL", z, s)
			}),
		},
	}
}
