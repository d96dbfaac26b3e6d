package conform

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// hashChecks are the checks of the hash commands chapter 30 adds.
func hashChecks() []Check {
	return slices.Concat(hashFieldChecks(), hashRandomChecks(), hashScanChecks())
}

// hashFieldChecks are the checks of HMSET, HSETNX, HSTRLEN and
// HINCRBYFLOAT, which write or measure one field at a time.
func hashFieldChecks() []Check {
	// The keys of the checks below that are only steps.
	h, s := "conform:h19", "conform:h19s"
	hf, sf := "conform:hf19", "conform:hf19s"
	return []Check{
		{
			Name:    "HMSET, HSETNX, HSTRLEN: replies, arity and WRONGTYPE",
			Section: section30("Hashes", "HMSET, HSETNX, HSTRLEN"),
			Hint:    "HMSET is HSET answering +OK (an odd count of arguments after the key is ERR wrong number of arguments); HSETNX sets a field only if it is missing (:1) and answers :0 otherwise; HSTRLEN is the length of a field's value, 0 for no field or no key",
			Run: freshSteps([]string{h, s},
				ex(okReply, "HMSET", h, "a", "1", "b", "22"),
				ex(arity("hmset"), "HMSET", h, "a"),
				ex(arity("hmset"), "HMSET", h, "a", "1", "b"),
				ex(bulk("1"), "HGET", h, "a"),
				ex(integer(2), "HSTRLEN", h, "b"),
				ex(integer(0), "HSTRLEN", h, "c"),
				ex(integer(0), "HSTRLEN", "conform:h19none", "c"),
				ex(integer(0), "HSETNX", h, "a", "x"),
				ex(integer(1), "HSETNX", h, "c", "333"),
				ex(bulk("1"), "HGET", h, "a"),
				ex(integer(3), "HSTRLEN", h, "c"),
				ex(okReply, "SET", s, "v"),
				ex(wrongType, "HMSET", s, "a", "1"),
				ex(wrongType, "HSETNX", s, "a", "1"),
				ex(wrongType, "HSTRLEN", s, "a"),
				ex(integer(2), "DEL", h, s),
			),
		},
		{
			Name:    "HINCRBYFLOAT: sums as Redis's long double writes them; the order of its errors",
			Section: section30("Hashes", "HINCRBYFLOAT"),
			Hint:    "the sum is computed in an 80-bit long double and written with 17 decimals, trailing zeros dropped (0.1 + 0.2 is 0.3); ERR value is not a valid float for an increment that is not a number, ERR value is NaN or Infinity for inf, then WRONGTYPE, ERR hash value is not a float for a field that is not a number, ERR increment would produce NaN or Infinity",
			Run: freshSteps([]string{hf, sf},
				ex(bulk("0.1"), "HINCRBYFLOAT", hf, "f", "0.1"),
				ex(bulk("0.3"), "HINCRBYFLOAT", hf, "f", "0.2"),
				ex(bulk("1000.29999999999999999"), "HINCRBYFLOAT", hf, "f", "1e3"),
				ex(bulk("1016.29999999999999999"), "HINCRBYFLOAT", hf, "f", "0x10"),
				ex(bulk("3000"), "HINCRBYFLOAT", hf, "g", "3.0e3"),
				ex(bulk("3000.00009999999999999"), "HINCRBYFLOAT", hf, "g", "0.0001"),
				ex(notFloat, "HINCRBYFLOAT", hf, "f", "abc"),
				ex(notFloat, "HINCRBYFLOAT", hf, "f", "nan"),
				ex(notFloat, "HINCRBYFLOAT", hf, "f", " 1"),
				ex("-ERR value is NaN or Infinity\r\n", "HINCRBYFLOAT", hf, "f", "inf"),
				ex(integer(2), "HSET", hf, "s", "abc", "i", "-inf"),
				ex("-ERR hash value is not a float\r\n", "HINCRBYFLOAT", hf, "s", "1"),
				ex("-ERR increment would produce NaN or Infinity\r\n", "HINCRBYFLOAT", hf, "i", "1"),
				ex(bulk("abc"), "HGET", hf, "s"),
				ex(okReply, "SET", sf, "v"),
				ex(notFloat, "HINCRBYFLOAT", sf, "f", "x"),
				ex(wrongType, "HINCRBYFLOAT", sf, "f", "1"),
				ex(integer(2), "DEL", hf, sf),
			),
		},
	}
}

// hashRandomChecks are the checks of HRANDFIELD.
func hashRandomChecks() []Check {
	// The key of the check below that is only steps, and what it holds.
	h := "conform:hr19"
	fields := map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}
	return []Check{
		{
			Name:    "HRANDFIELD: one field, distinct fields for a positive count, repeats for a negative one, WITHVALUES; its errors",
			Section: section30("Hashes", "HRANDFIELD"),
			Hint:    "no count: a field, or null for no key; count n > 0: min(n, HLEN) distinct fields; n < 0: |n| fields, repeats allowed; WITHVALUES: field, value, ... (pairs in RESP3); a count that is not an integer is ERR value is not an integer or out of range, -2^63 is out of range, and with WITHVALUES so is any count past 2^62",
			Run: freshSteps([]string{h},
				ex(nullBulk, "HRANDFIELD", h),
				ex(array(), "HRANDFIELD", h, "5"),
				ex(integer(5), "HSET", h, "a", "1", "b", "2", "c", "3", "d", "4", "e", "5"),
				ex(array(), "HRANDFIELD", h, "0"),
				ex(notInt, "HRANDFIELD", h, "x"),
				ex(syntaxErr, "HRANDFIELD", h, "1", "WITHVALUE"),
				ex(syntaxErr, "HRANDFIELD", h, "1", "WITHVALUES", "x"),
				ex("-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n", "HRANDFIELD", h, "-9223372036854775808"),
				ex("-ERR value is out of range\r\n", "HRANDFIELD", h, "-9223372036854770000", "WITHVALUES"),
				randFields(h, fields, 3, true, "3"),
				randFields(h, fields, 5, true, "5"),
				randFields(h, fields, 5, true, "9"),
				randFields(h, fields, 12, false, "-12"),
				randFields(h, fields, 2, true, "2", "WITHVALUES"),
				randFields(h, fields, 7, false, "-7", "withvalues"),
				ex(integer(1), "DEL", h),
			),
		},
	}
}

// hashScanChecks are the checks of HSCAN.
func hashScanChecks() []Check {
	return []Check{
		{
			Name:    "HSCAN: a cursor from 0 back to 0 returns every field present throughout, while the hash grows and shrinks; MATCH, COUNT, errors",
			Section: section30("Hashes", "HSCAN"),
			Hint:    "HSCAN key cursor answers [next cursor, field, value, ...]; a field present from the first call to the last comes back at least once, however the hash changes meanwhile; MATCH filters by a glob on the field; ERR invalid cursor, ERR syntax error for COUNT < 1 or an unknown option, and a missing key answers [0, []] whatever its options",
			Run: dialed(func(e *Env, c *Conn) error {
				h := c.fresh("conform:hs19")
				for i := range 300 {
					if err := c.CommandExpect(integer(1), "HSET", h, fmt.Sprint("keep", i), "v"); err != nil {
						return err
					}
				}
				// Between calls, grow the hash past several times its size,
				// and delete some of what was added.
				added := 0
				seen, _, err := c.hscanAll(h, []string{"COUNT", "7"}, func(call int) error {
					for range 30 {
						if err := c.CommandExpect(integer(1), "HSET", h, fmt.Sprint("new", added), "v"); err != nil {
							return err
						}
						added++
					}
					for i := range 20 {
						c.CommandReply("HDEL", h, fmt.Sprint("new", (call*13+i*7)%added))
					}
					return nil
				})
				if err != nil {
					return err
				}
				for i := range 300 {
					if seen[fmt.Sprint("keep", i)] == 0 {
						return fmt.Errorf("HSCAN never returned field keep%d, present from the first call to the last (%d fields added meanwhile)", i, added)
					}
				}
				ones, _, err := c.hscanAll(h, []string{"MATCH", "keep1?", "COUNT", "50"}, nil)
				if err != nil {
					return err
				}
				if len(ones) != 10 {
					return fmt.Errorf("HSCAN %s MATCH keep1?: %d distinct fields, expected keep10 to keep19", h, len(ones))
				}
				return c.steps(
					ex("-ERR invalid cursor\r\n", "HSCAN", h, "x"),
					ex(syntaxErr, "HSCAN", h, "0", "COUNT", "0"),
					ex(notInt, "HSCAN", h, "0", "COUNT", "x"),
					ex(syntaxErr, "HSCAN", h, "0", "TYPE", "hash"),
					ex(array(bulk("0"), array()), "HSCAN", "conform:hs19none", "0", "COUNT", "x"),
					ex(integer(1), "DEL", h),
				)
			}),
		},
		{
			Name:    "HSCAN: a small hash in one call",
			Section: section30("Hashes", "HSCAN"),
			Hint:    "Redis answers a hash of up to 128 short fields (its compact encoding) whole, with cursor 0, whatever the cursor and COUNT",
			Run: dialed(func(e *Env, c *Conn) error {
				h := c.fresh("conform:hs19small")
				args := []string{"HSET", h}
				for i := range 20 {
					args = append(args, "f"+strconv.Itoa(i), "v")
				}
				if err := c.CommandExpect(integer(20), args...); err != nil {
					return err
				}
				p, err := c.scanStep("HSCAN", h, "0", "COUNT", "1")
				if err != nil {
					return err
				}
				if p.next != "0" || len(p.keys) != 40 || !strings.HasPrefix(p.keys[0], "f") {
					return fmt.Errorf("HSCAN %s 0 COUNT 1: cursor %s and %d fields and values, expected cursor 0 and all 20 fields with their values", h, p.next, len(p.keys))
				}
				return c.steps(ex(integer(1), "DEL", h))
			}),
		},
	}
}

// randFields sends HRANDFIELD h with args, a count and maybe WITHVALUES,
// and checks that it answers n fields of the hash, whose fields and
// values are fields: no field twice if distinct, and each followed by its
// value with WITHVALUES.
func randFields(h string, fields map[string]string, n int, distinct bool, args ...string) respStep {
	return func(c *Conn) error {
		req, got, err := c.CommandReply(append([]string{"HRANDFIELD", h}, args...)...)
		if err != nil {
			return err
		}
		fail := func(why string) error {
			return fmt.Errorf("request:  %s\n%s\nreceived: %s", showRESPRequest(req), why, quoteClip(got))
		}
		items, ok := splitBulks(got)
		withValues := len(args) == 2
		if !ok {
			return fail("expected an array of bulk strings")
		}
		names := items
		if withValues {
			names = nil
			for i := 0; i+1 < len(items); i += 2 {
				if fields[items[i]] != items[i+1] {
					return fail(fmt.Sprintf("field %q came with %q", items[i], items[i+1]))
				}
				names = append(names, items[i])
			}
		}
		if len(names) != n {
			return fail(fmt.Sprintf("expected %d fields", n))
		}
		for _, f := range names {
			if _, ok := fields[f]; !ok {
				return fail(fmt.Sprintf("%q is not a field of the hash", f))
			}
		}
		if distinct && len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
			return fail("expected distinct fields for a positive count")
		}
		return nil
	}
}
