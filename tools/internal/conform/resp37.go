package conform

import (
	"fmt"
	"slices"
	"strings"
)

// The ch37 stage: lists, and the commands that push, read, change and pop
// them, as Redis 7.0 answers them (a list of any size is a quicklist).

// resp37Checks are chapter 37's checks.
func resp37Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(listChecks(), []Check{{
		Name: "not checked: what chapter 37 does not claim",
		Skip: "the blocking commands' wait (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP on empty keys) and LMPOP, which the ch38 stage checks, Redis 7.2's listpack encoding of a small list, sets, streams and Redis's other families (ch37_lists/README.md)",
	}})
}

// section37 points a check at the part of chapter 37's README on topic.
func section37(topic string) string { return chapterSection("ch37_lists", "", topic) }

// noRank is LPOS's error for RANK 0.
const noRank = "-ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list\r\n"

// listChecks are the checks of the list commands.
func listChecks() []Check {
	// The keys of the checks below, s a string.
	l, m, s := "conform:l37", "conform:l37b", "conform:l37s"
	return []Check{
		{
			Name:    "lists: LPUSH, RPUSH, LPUSHX, RPUSHX and LLEN; TYPE and OBJECT ENCODING",
			Section: section37("lists"),
			Hint:    "LPUSH puts its elements at the head one by one (LPUSH l a b c reads c b a), RPUSH at the tail; both answer the new length; the X forms push only onto an existing list, and answer 0 for no key; TYPE is list, OBJECT ENCODING quicklist (Redis 7.0) whatever the list's size",
			Run: freshSteps([]string{l, m},
				ex(integer(3), "LPUSH", l, "a", "b", "c"),
				ex(integer(5), "RPUSH", l, "d", "e"),
				ex(arity("lpush"), "LPUSH", l),
				ex(arity("rpush"), "RPUSH", l),
				ex(integer(0), "LPUSHX", m, "a"),
				ex(integer(0), "RPUSHX", m, "a"),
				ex(integer(0), "EXISTS", m),
				ex(integer(6), "LPUSHX", l, "x"),
				ex(integer(8), "RPUSHX", l, "y", "z"),
				ex(bulks("x", "c", "b", "a", "d", "e", "y", "z"), "LRANGE", l, "0", "-1"),
				ex(integer(8), "LLEN", l),
				ex(integer(0), "LLEN", m),
				ex("+list\r\n", "TYPE", l),
				ex(bulk("quicklist"), "OBJECT", "ENCODING", l),
				ex(integer(1), "DEL", l),
			),
		},
		{
			Name:    "lists: LRANGE and LINDEX, negative and out-of-range indexes",
			Section: section37("lists"),
			Hint:    "a negative index counts from the tail (-1 the last); LRANGE clamps its range to the list and answers an empty array for an empty range or no key; LINDEX answers null out of range or for no key; an index that is not an integer is ERR value is not an integer or out of range",
			Run: freshSteps([]string{l, m},
				ex(integer(5), "RPUSH", l, "a", "b", "c", "d", "e"),
				ex(bulks("a", "b", "c", "d", "e"), "LRANGE", l, "0", "-1"),
				ex(bulks("c", "d", "e"), "LRANGE", l, "-3", "-1"),
				ex(bulks("b", "c"), "LRANGE", l, "1", "-3"),
				ex(bulks("a", "b", "c", "d", "e"), "LRANGE", l, "-100", "100"),
				ex(bulks(), "LRANGE", l, "3", "1"),
				ex(bulks(), "LRANGE", l, "5", "10"),
				ex(bulks("a"), "LRANGE", l, "-100", "0"),
				ex(bulks(), "LRANGE", m, "0", "-1"),
				ex(notInt, "LRANGE", l, "0", "x"),
				ex(bulk("a"), "LINDEX", l, "0"),
				ex(bulk("e"), "LINDEX", l, "-1"),
				ex(bulk("a"), "LINDEX", l, "-5"),
				ex(nullBulk, "LINDEX", l, "5"),
				ex(nullBulk, "LINDEX", l, "-6"),
				ex(nullBulk, "LINDEX", m, "0"),
				ex(notInt, "LINDEX", l, "x"),
				ex(integer(1), "DEL", l),
			),
		},
		{
			Name:    "lists: LSET and LINSERT",
			Section: section37("lists"),
			Hint:    "LSET answers +OK, ERR index out of range past either end, ERR no such key for no key; LINSERT key BEFORE|AFTER pivot element answers the new length, -1 if the pivot is not in the list, 0 for no key; a place other than BEFORE or AFTER is ERR syntax error",
			Run: freshSteps([]string{l, m},
				ex(integer(3), "RPUSH", l, "a", "b", "c"),
				ex(okReply, "LSET", l, "0", "A"),
				ex(okReply, "LSET", l, "-1", "C"),
				ex("-ERR index out of range\r\n", "LSET", l, "3", "x"),
				ex("-ERR index out of range\r\n", "LSET", l, "-4", "x"),
				ex("-ERR no such key\r\n", "LSET", m, "0", "x"),
				ex(notInt, "LSET", l, "x", "x"),
				ex(integer(4), "LINSERT", l, "BEFORE", "A", "p"),
				ex(integer(5), "LINSERT", l, "after", "b", "q"),
				ex(integer(6), "LINSERT", l, "AFTER", "C", "r"),
				ex(integer(-1), "LINSERT", l, "BEFORE", "nosuch", "x"),
				ex(integer(0), "LINSERT", m, "BEFORE", "a", "x"),
				ex(integer(0), "EXISTS", m),
				ex(syntaxErr, "LINSERT", l, "SIDEWAYS", "A", "x"),
				ex(bulks("p", "A", "b", "q", "C", "r"), "LRANGE", l, "0", "-1"),
				ex(integer(1), "DEL", l),
			),
		},
		{
			Name:    "lists: LREM and LTRIM; a list emptied is deleted",
			Section: section37("lists"),
			Hint:    "LREM key count element removes count matches from the head, -count from the tail, all of them for 0, and answers how many; LTRIM keeps the range (clamped as LRANGE's) and answers +OK, for no key too; a list left without elements, by any command, is no key",
			Run: freshSteps([]string{l, m},
				ex(integer(7), "RPUSH", l, "a", "b", "a", "c", "a", "b", "a"),
				ex(integer(2), "LREM", l, "-2", "a"),
				ex(bulks("a", "b", "a", "c", "b"), "LRANGE", l, "0", "-1"),
				ex(integer(1), "LREM", l, "1", "b"),
				ex(integer(2), "LREM", l, "0", "a"),
				ex(integer(0), "LREM", l, "0", "nosuch"),
				ex(integer(0), "LREM", m, "0", "a"),
				ex(notInt, "LREM", l, "x", "a"),
				ex(bulks("c", "b"), "LRANGE", l, "0", "-1"),
				ex(integer(1), "LREM", l, "0", "c"),
				ex(integer(1), "LREM", l, "-1", "b"),
				ex(integer(0), "EXISTS", l),
				ex(integer(6), "RPUSH", l, "a", "b", "c", "d", "e", "f"),
				ex(okReply, "LTRIM", l, "1", "-2"),
				ex(bulks("b", "c", "d", "e"), "LRANGE", l, "0", "-1"),
				ex(okReply, "LTRIM", l, "-100", "100"),
				ex(integer(4), "LLEN", l),
				ex(notInt, "LTRIM", l, "x", "1"),
				ex(okReply, "LTRIM", m, "0", "1"),
				ex(okReply, "LTRIM", l, "2", "1"),
				ex(integer(0), "EXISTS", l),
			),
		},
		{
			Name:    "lists: LPOS with RANK, COUNT and MAXLEN; its errors",
			Section: section37("lists"),
			Hint:    "LPOS answers the index of the first match, or null; RANK n starts from the n-th match (negative: from the tail); COUNT n answers an array of up to n indexes (0: all), an empty one for none or no key; MAXLEN n compares only n elements; RANK 0, a negative COUNT or MAXLEN are errors of their own",
			Run: freshSteps([]string{l, m},
				ex(integer(8), "RPUSH", l, "a", "b", "c", "1", "2", "3", "c", "c"),
				ex(integer(2), "LPOS", l, "c"),
				ex(integer(6), "LPOS", l, "c", "RANK", "2"),
				ex(integer(7), "LPOS", l, "c", "RANK", "-1"),
				ex(integer(2), "LPOS", l, "c", "RANK", "-3"),
				ex(nullBulk, "LPOS", l, "c", "RANK", "4"),
				ex(array(integer(2), integer(6), integer(7)), "LPOS", l, "c", "COUNT", "0"),
				ex(array(integer(2), integer(6)), "LPOS", l, "c", "COUNT", "2"),
				ex(array(integer(7), integer(6)), "LPOS", l, "c", "COUNT", "2", "RANK", "-1"),
				ex(array(integer(6), integer(7)), "LPOS", l, "c", "RANK", "2", "COUNT", "0"),
				ex(integer(2), "LPOS", l, "c", "MAXLEN", "3"),
				ex(nullBulk, "LPOS", l, "c", "MAXLEN", "2"),
				ex(array(integer(2), integer(6)), "LPOS", l, "c", "COUNT", "0", "MAXLEN", "7"),
				ex(integer(7), "LPOS", l, "c", "RANK", "-1", "MAXLEN", "2"),
				ex(nullBulk, "LPOS", l, "nosuch"),
				ex(array(), "LPOS", l, "nosuch", "COUNT", "1"),
				ex(nullBulk, "LPOS", m, "a"),
				ex(array(), "LPOS", m, "a", "COUNT", "1"),
				ex(noRank, "LPOS", l, "c", "RANK", "0"),
				ex("-ERR COUNT can't be negative\r\n", "LPOS", l, "c", "COUNT", "-1"),
				ex("-ERR MAXLEN can't be negative\r\n", "LPOS", l, "c", "MAXLEN", "-1"),
				ex(notInt, "LPOS", l, "c", "RANK", "x"),
				ex(syntaxErr, "LPOS", l, "c", "RANK"),
				ex(syntaxErr, "LPOS", l, "c", "FOO", "1"),
				ex(integer(1), "DEL", l),
			),
		},
		{
			Name:    "lists: LPOP and RPOP, with and without a count",
			Section: section37("lists"),
			Hint:    "without a count a pop answers the element, or null for no key; with one, an array of up to count elements in the order popped (an empty one for 0), and a null array (*-1 in RESP2) for no key whatever the count; a negative count or one that is not a number is ERR value is out of range, must be positive",
			Run: freshSteps([]string{l, m},
				ex(integer(5), "RPUSH", l, "a", "b", "c", "d", "e"),
				ex(bulk("a"), "LPOP", l),
				ex(bulk("e"), "RPOP", l),
				ex(bulks("b", "c"), "LPOP", l, "2"),
				ex(bulks(), "RPOP", l, "0"),
				ex(bulks(), "LPOP", l, "0"),
				ex(bulks("d"), "RPOP", l, "5"),
				ex(integer(0), "EXISTS", l),
				ex(nullBulk, "LPOP", l),
				ex(nullBulk, "RPOP", m),
				ex(nullArray, "LPOP", l, "1"),
				ex(nullArray, "RPOP", m, "2"),
				ex(nullArray, "LPOP", m, "0"),
				ex(integer(3), "RPUSH", l, "a", "b", "c"),
				ex(bulks("c", "b"), "RPOP", l, "2"),
				ex("-ERR value is out of range, must be positive\r\n", "RPOP", l, "-1"),
				ex("-ERR value is out of range, must be positive\r\n", "LPOP", l, "x"),
				ex(arity("lpop"), "LPOP", l, "1", "2"),
				ex(integer(1), "DEL", l),
			),
		},
		{
			Name:    "lists: LMOVE and RPOPLPUSH",
			Section: section37("lists"),
			Hint:    "LMOVE src dst LEFT|RIGHT LEFT|RIGHT pops from one end of src and pushes onto one end of dst (the same list may be both), answering the element, or null for no src; RPOPLPUSH is LMOVE src dst RIGHT LEFT",
			Run: freshSteps([]string{l, m, s},
				ex(okReply, "SET", s, "v"),
				ex(integer(3), "RPUSH", l, "a", "b", "c"),
				ex(bulk("a"), "LMOVE", l, m, "LEFT", "RIGHT"),
				ex(bulk("c"), "LMOVE", l, m, "right", "left"),
				ex(bulks("c", "a"), "LRANGE", m, "0", "-1"),
				ex(bulk("b"), "LMOVE", l, l, "LEFT", "RIGHT"),
				ex(bulks("b"), "LRANGE", l, "0", "-1"),
				ex(nullBulk, "LMOVE", "conform:l37none", m, "LEFT", "LEFT"),
				ex(syntaxErr, "LMOVE", l, m, "UP", "LEFT"),
				ex(wrongType, "LMOVE", l, s, "LEFT", "LEFT"),
				ex(bulks("b"), "LRANGE", l, "0", "-1"),
				ex(bulk("b"), "RPOPLPUSH", l, m),
				ex(integer(0), "EXISTS", l),
				ex(bulks("b", "c", "a"), "LRANGE", m, "0", "-1"),
				ex(nullBulk, "RPOPLPUSH", l, m),
				ex(bulk("a"), "RPOPLPUSH", m, m),
				ex(bulks("a", "b", "c"), "LRANGE", m, "0", "-1"),
				ex(wrongType, "RPOPLPUSH", m, s),
				ex(integer(1), "DEL", s),
			),
		},
		{
			Name:    "lists: every list command against a string is WRONGTYPE",
			Section: section37("lists"),
			Hint:    "a key that holds another type answers -WRONGTYPE to every list command, the pushes that only push onto a list (LPUSHX, RPUSHX) included, and is left as it was",
			Run: func(e *Env) error {
				c, err := e.Dial()
				if err != nil {
					return err
				}
				c.fresh(l)
				c.fresh(s)
				ss := []respStep{ex(okReply, "SET", s, "v")}
				for _, args := range [][]string{
					{"LPUSH", s, "a"}, {"RPUSH", s, "a"}, {"LPUSHX", s, "a"}, {"RPUSHX", s, "a"},
					{"LLEN", s}, {"LRANGE", s, "0", "-1"}, {"LINDEX", s, "0"}, {"LSET", s, "0", "a"},
					{"LINSERT", s, "BEFORE", "a", "b"}, {"LREM", s, "0", "a"}, {"LTRIM", s, "0", "1"},
					{"LPOS", s, "a"}, {"LPOP", s}, {"RPOP", s}, {"LPOP", s, "0"}, {"RPOP", s, "1"},
					{"LMOVE", s, l, "LEFT", "LEFT"}, {"RPOPLPUSH", s, l},
				} {
					ss = append(ss, ex(wrongType, args...))
				}
				return c.steps(append(ss,
					ex(bulk("v"), "GET", s),
					ex(integer(0), "EXISTS", l),
					ex(integer(1), "DEL", s),
				)...)
			},
		},
		{
			Name:    "lists: a list of several nodes, an element bigger than a node among them",
			Section: section37("lists"),
			Hint:    "3,000 short elements fill several of a quicklist's 8 KiB nodes; an element of 10,000 bytes has a node of its own; indexes, inserts, replacements, removals, trims and pops across nodes answer as in a list of one",
			Run:     bigListCheck(l),
		},
	}
}

// bigListCheck is the check of a list over several nodes.
func bigListCheck(l string) func(e *Env) error {
	return dialed(func(e *Env, c *Conn) error {
		c.fresh(l)
		el := func(i int) string { return fmt.Sprintf("e%04d", i) }
		els := func(from, to, step int) []string {
			var out []string
			for i := from; i != to+step; i += step {
				out = append(out, el(i))
			}
			return out
		}
		for part := range 3 {
			args := append([]string{"RPUSH", l}, els(part*1000, part*1000+999, 1)...)
			if err := c.CommandExpect(integer(int64(part+1)*1000), args...); err != nil {
				return err
			}
		}
		big := strings.Repeat("x", 10000)
		return c.steps(
			ex(integer(3000), "LLEN", l),
			ex(bulk(el(1500)), "LINDEX", l, "1500"),
			ex(bulk(el(1170)), "LINDEX", l, "1170"),
			ex(bulk(el(2999)), "LINDEX", l, "-1"),
			ex(integer(3001), "LINSERT", l, "BEFORE", el(1500), big),
			ex(bulk(big), "LINDEX", l, "1500"),
			ex(bulk(el(1500)), "LINDEX", l, "1501"),
			ex(okReply, "LSET", l, "1500", "small"),
			ex(okReply, "LSET", l, "0", big),
			ex(bulk(big), "LINDEX", l, "0"),
			ex(bulks(el(1498), el(1499), "small", el(1500), el(1501)), "LRANGE", l, "1498", "1502"),
			ex(integer(3002), "LINSERT", l, "AFTER", el(2000), "after"),
			ex(integer(2002), "LPOS", l, "after"),
			ex(integer(1), "LREM", l, "0", "small"),
			ex(integer(1), "LREM", l, "-1", "after"),
			ex(integer(1), "LREM", l, "-1", el(2999)),
			ex(integer(2000), "LPOS", l, el(2000)),
			ex(integer(2000), "LPOS", l, el(2000), "RANK", "-1"),
			ex(nullBulk, "LPOS", l, el(2998), "MAXLEN", "10"),
			ex(integer(2998), "LPOS", l, el(2998), "RANK", "-1", "MAXLEN", "1"),
			ex(bulk(big), "LPOP", l),
			ex(integer(2998), "LLEN", l),
			ex(okReply, "LTRIM", l, "999", "1998"),
			ex(integer(1000), "LLEN", l),
			ex(bulk(el(1000)), "LINDEX", l, "0"),
			ex(bulk(el(1999)), "LINDEX", l, "-1"),
			ex(bulks(els(1000, 1599, 1)...), "LPOP", l, "600"),
			ex(bulks(els(1999, 1600, -1)...), "RPOP", l, "400"),
			ex(integer(0), "EXISTS", l),
		)
	})
}
