package conform

import "slices"

// resp28Checks are chapter 28's checks: the bit commands and LCS.
func resp28Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(stringBitChecks(), stringTypeChecks("the bit commands", "SETBIT 0 1", "GETBIT 0", "BITCOUNT", "BITPOS 1"), []Check{{
		Name: "not checked: what chapter 28 does not claim",
		Skip: "BITFIELD, and the commands of chapters 29 and on (ch28_bits/README.md)",
	}})
}

// stringBitChecks are the checks of the commands that work on a
// string's bits, and of LCS.
func stringBitChecks() []Check {
	// The keys of the checks below that are only steps.
	k, d := "conform:bits19", "conform:bits19d"
	return []Check{
		{
			Name:    "the bit commands: SETBIT, GETBIT, BITCOUNT and BITPOS in bytes and bits, BITOP",
			Section: section28("Strings", "bits"),
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
			Section: section28("Strings", "LCS"),
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
