package conform

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The ch25 stage: what chapter 25 adds to the RESP listener, as Redis 7.0
// answers it. SCAN's order is the server's own, so its checks compare sets
// of keys (a key may come back more than once, as Redis allows); TYPE's
// are byte for byte.

// sectionScan points a check at the part of chapter 25's README it tests.
func sectionScan(topic string) string {
	return "beyond the book: " + topic + " (ch25_scan/README.md)"
}

// scanChecks are the ch25 stage's checks.
func scanChecks(st *Stage, cfg *Config) []Check {
	return slices.Concat(scanCursorChecks(), scanChurnChecks(), typeChecks(), []Check{{
		Name: "not checked: what chapter 25 does not claim",
		Skip: "HSCAN, ZSCAN and SSCAN, SCAN's TYPE with a type Redis has and chapter 25 does not (list, set, stream), " +
			"and Redis's other commands, transactions and INFO among them, which chapter 26's stage checks (ch25_scan/README.md)",
	}})
}

// scanPage is one SCAN reply: the next cursor and the keys.
type scanPage struct {
	next string
	keys []string
}

// scanStep sends one SCAN (or another command answering as SCAN does) and
// splits its reply, checking its shape: an array of the next cursor, a
// bulk string of digits, and an array of bulk strings.
func (c *Conn) scanStep(args ...string) (scanPage, error) {
	req, got, err := c.CommandReply(args...)
	if err != nil {
		return scanPage{}, err
	}
	fail := &Mismatch{Request: req, Want: []byte("*2 $<cursor> *<n> $<key>... (the next cursor as a bulk string of digits, then an array of keys)"), Got: got, e: c.e}
	els := respElements(got)
	if len(els) != 2 || !strings.HasPrefix(els[0], "$") || els[0] == nullBulk {
		return scanPage{}, fail
	}
	cur := els[0][strings.IndexByte(els[0], '\n')+1 : len(els[0])-2]
	if _, err := strconv.ParseUint(cur, 10, 64); err != nil {
		return scanPage{}, fail
	}
	keys, ok := splitBulks([]byte(els[1]))
	if !ok {
		return scanPage{}, fail
	}
	return scanPage{next: cur, keys: keys}, nil
}

// maxScanCalls bounds one iteration, so that a server whose cursor never
// comes back to 0 fails the check instead of holding it until its
// deadline with no word of why.
const maxScanCalls = 20000

// scanAll iterates SCAN from cursor 0 until it is 0 again, with opts after
// the cursor, calling between (if set) after each call, and returns how
// many times each key came back and the number of calls.
func (c *Conn) scanAll(opts []string, between func(call int) error) (map[string]int, int, error) {
	return c.iterate([]string{"SCAN"}, opts, false, between)
}

// hscanAll iterates HSCAN key as scanAll does SCAN, and counts the fields
// that come back: its replies list each field with its value.
func (c *Conn) hscanAll(key string, opts []string, between func(call int) error) (map[string]int, int, error) {
	return c.iterate([]string{"HSCAN", key}, opts, true, between)
}

// iterate is the loop of scanAll and hscanAll, for any command that
// answers as SCAN does: cmd is what the cursor follows, and pairs says
// that a reply lists names and values, of which the names are counted.
func (c *Conn) iterate(cmd, opts []string, pairs bool, between func(call int) error) (map[string]int, int, error) {
	seen := map[string]int{}
	cur := "0"
	for call := 1; ; call++ {
		args := slices.Concat(cmd, []string{cur}, opts)
		if call > maxScanCalls {
			return nil, call, fmt.Errorf("request:  %s\n%s's cursor did not come back to 0 after %d calls (last cursor %s, %d distinct keys returned): an iteration must end",
				showRESPRequest(command(args...)), cmd[0], maxScanCalls, cur, len(seen))
		}
		p, err := c.scanStep(args...)
		if err != nil {
			return nil, call, err
		}
		step := 1
		if pairs {
			if len(p.keys)%2 != 0 {
				return nil, call, fmt.Errorf("request:  %s\nan odd number of fields and values", showRESPRequest(command(args...)))
			}
			step = 2
		}
		for i := 0; i < len(p.keys); i += step {
			seen[p.keys[i]]++
		}
		if p.next == "0" {
			return seen, call, nil
		}
		cur = p.next
		if between != nil {
			if err := between(call); err != nil {
				return nil, call, err
			}
		}
	}
}

// sameKeys checks that the keys an iteration returned (under prefix, on a
// server shared with other keys) are exactly want, duplicates allowed.
func sameKeys(what string, seen map[string]int, prefix string, want []string) error {
	var got []string
	for k := range seen {
		if strings.HasPrefix(k, prefix) {
			got = append(got, k)
		}
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if slices.Equal(got, want) {
		return nil
	}
	var missing, extra []string
	for _, k := range want {
		if _, ok := slices.BinarySearch(got, k); !ok {
			missing = append(missing, k)
		}
	}
	for _, k := range got {
		if _, ok := slices.BinarySearch(want, k); !ok {
			extra = append(extra, k)
		}
	}
	return fmt.Errorf("%s: %d keys returned, %d expected; missing %s; not expected %s",
		what, len(got), len(want), clipList(missing), clipList(extra))
}

// clipList shows up to 5 keys, and how many more.
func clipList(ks []string) string {
	if len(ks) == 0 {
		return "none"
	}
	if len(ks) > 5 {
		return strings.Join(ks[:5], " ") + fmt.Sprintf(" ... (%d in all)", len(ks))
	}
	return strings.Join(ks, " ")
}

// delMatching deletes the keys KEYS pattern lists (a shared server's
// leftovers of an earlier run).
func (c *Conn) delMatching(pattern string) error {
	req, got, err := c.CommandReply("KEYS", pattern)
	if err != nil {
		return err
	}
	keys, ok := splitBulks(got)
	if !ok {
		return &Mismatch{Request: req, Want: []byte("*<n> $<key>..."), Got: got, e: c.e}
	}
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		if _, err := c.CommandInt(append([]string{"DEL"}, keys[:n]...)...); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// scanCursorChecks are the checks of SCAN's cursor, its options and its
// errors.
func scanCursorChecks() []Check {
	return []Check{
		{
			Name:          "SCAN: a cursor from 0 back to 0 returns every key; COUNT, MATCH and TYPE",
			Section:       sectionScan("SCAN"),
			Hint:          "SCAN answers [next cursor, keys]; the cursor is 0 when the iteration is done; COUNT is how much to look at per call, MATCH a KEYS glob, TYPE string|hash|zset: both filter what one call looked at, so a call may return no key and a cursor that is not 0",
			Fresh:         true,
			FreshOptional: true,
			Timeout:       60 * time.Second,
			Run: dialed(func(e *Env, c *Conn) error {
				const prefix = "conform:scan:"
				var strs, zsets, hashes, ones []string
				if e.fresh {
					if err := c.CommandExpect(array(bulk("0"), array()), "SCAN", "0"); err != nil {
						return fmt.Errorf("an empty key space: %v", err)
					}
				} else if err := c.delMatching(prefix + "*"); err != nil {
					return err
				}
				// 300 strings, far more than one call's COUNT, some
				// named to match a pattern; 20 sorted sets and 20 hashes.
				for i := range 300 {
					k := fmt.Sprintf("%s%03d", prefix, i)
					strs = append(strs, k)
					if strings.HasPrefix(k, prefix+"1") {
						ones = append(ones, k)
					}
					if err := c.CommandExpect(okReply, "SET", k, "v"); err != nil {
						return err
					}
				}
				for i := range 20 {
					z, h := fmt.Sprintf("%sz%02d", prefix, i), fmt.Sprintf("%sh%02d", prefix, i)
					zsets, hashes = append(zsets, z), append(hashes, h)
					if err := c.steps(ex(integer(1), "ZADD", z, "1", "m"), ex(integer(1), "HSET", h, "f", "v")); err != nil {
						return err
					}
				}
				all := slices.Concat(strs, zsets, hashes)
				// scan iterates with opts and compares the keys under prefix
				// with want.
				scan := func(opts, want []string) error {
					seen, _, err := c.scanAll(opts, nil)
					if err != nil {
						return err
					}
					return sameKeys(showRESPRequest(command(append([]string{"SCAN", "<cursor>"}, opts...)...)), seen, prefix, want)
				}
				// On a shared server, other keys come back too: only this
				// check's count.
				match := []string{}
				if !e.fresh {
					match = []string{"MATCH", prefix + "*"}
				}
				for _, count := range []string{"", "1", "7", "1000"} {
					opts := match
					if count != "" {
						opts = append(slices.Clone(match), "COUNT", count)
					}
					if err := scan(opts, all); err != nil {
						return err
					}
				}
				for _, q := range []struct {
					opts []string
					want []string
				}{
					{[]string{"MATCH", prefix + "1*", "COUNT", "10"}, ones},
					{[]string{"MATCH", prefix + "z*"}, zsets},
					{[]string{"MATCH", "conform:nomatch:*", "COUNT", "50"}, nil},
					{slices.Concat(match, []string{"TYPE", "zset"}), zsets},
					{slices.Concat(match, []string{"TYPE", "HASH", "COUNT", "5"}), hashes},
					{slices.Concat(match, []string{"TYPE", "string"}), strs},
					{[]string{"COUNT", "20", "MATCH", prefix + "1*", "TYPE", "string"}, ones},
					{[]string{"MATCH", prefix + "h*", "TYPE", "zset"}, nil},
				} {
					if err := scan(q.opts, q.want); err != nil {
						return err
					}
				}
				n, err := c.CommandInt(append([]string{"DEL"}, all...)...)
				if err != nil || n != int64(len(all)) {
					return fmt.Errorf("DEL of the %d keys: %d, %v", len(all), n, err)
				}
				return nil
			}),
		},
		{
			Name:    "SCAN's errors: a cursor that is not an unsigned integer, bad COUNT, unknown options",
			Section: sectionScan("SCAN"),
			Hint:    "a cursor is an unsigned 64-bit decimal integer (else ERR invalid cursor); COUNT below 1, an option without its value or an unknown option is a syntax error",
			Run: dialed(func(e *Env, c *Conn) error {
				const invalid = "-ERR invalid cursor\r\n"
				return c.steps(
					ex(arity("scan"), "SCAN"),
					ex(invalid, "SCAN", "abc"),
					ex(invalid, "SCAN", "1.5"),
					ex(invalid, "SCAN", "18446744073709551616"),
					ex(syntaxErr, "SCAN", "0", "COUNT", "0"),
					ex(syntaxErr, "SCAN", "0", "COUNT", "-1"),
					ex(notInt, "SCAN", "0", "COUNT", "many"),
					ex(syntaxErr, "SCAN", "0", "MATCH"),
					ex(syntaxErr, "SCAN", "0", "TYPE"),
					ex(syntaxErr, "SCAN", "0", "BOGUS", "x"),
				)
			}),
		},
	}
}

// scanChurnChecks are the checks of SCAN while keys come and go.
func scanChurnChecks() []Check {
	return []Check{
		{
			Name:          "SCAN while keys are added and deleted returns every key present from start to end",
			Section:       sectionScan("SCAN"),
			Hint:          "the cursor must survive the key table's resizes: a key that stays put is returned, at least once, however the table grows or shrinks between calls; keys that never existed are never returned",
			Fresh:         true,
			FreshOptional: true,
			Timeout:       90 * time.Second,
			Run: dialed(func(e *Env, c *Conn) error {
				const stay, come = "conform:scanstay:", "conform:scancome:"
				if !e.fresh {
					if err := c.delMatching("conform:scan[sc]*"); err != nil {
						return err
					}
				}
				var kept []string
				for i := range 200 {
					k := fmt.Sprintf("%s%03d", stay, i)
					kept = append(kept, k)
					if err := c.CommandExpect(okReply, "SET", k, "v"); err != nil {
						return err
					}
				}
				// Between the first calls, 100 new keys each time (the
				// table grows several times over), then all of them
				// deleted again (it shrinks); later calls change nothing,
				// so the iteration can end.
				added := 0
				between := func(call int) error {
					switch {
					case call <= 20:
						for range 100 {
							if err := c.CommandExpect(okReply, "SET", fmt.Sprintf("%s%05d", come, added), "v"); err != nil {
								return err
							}
							added++
						}
						return nil
					case call <= 40:
						var args []string
						for range 100 {
							if added == 0 {
								break
							}
							added--
							args = append(args, fmt.Sprintf("%s%05d", come, added))
						}
						if len(args) == 0 {
							return nil
						}
						_, err := c.CommandInt(append([]string{"DEL"}, args...)...)
						return err
					}
					return nil
				}
				opts := []string{"COUNT", "10"}
				if !e.fresh {
					opts = append(opts, "MATCH", "conform:scan[sc]*")
				}
				seen, calls, err := c.scanAll(opts, between)
				if err != nil {
					return err
				}
				for k := range seen {
					n, err := strconv.Atoi(strings.TrimPrefix(k, come))
					switch {
					case strings.HasPrefix(k, stay):
					case strings.HasPrefix(k, come) && err == nil && n < 2000:
					case strings.HasPrefix(k, come) || e.fresh:
						return fmt.Errorf("SCAN returned %q, a key that never existed", k)
					}
				}
				if err := sameKeys(fmt.Sprintf("SCAN <cursor> %s, over %d calls while keys were added and deleted", strings.Join(opts, " "), calls), seen, stay, kept); err != nil {
					return err
				}
				if added > 0 {
					var args []string
					for i := range added {
						args = append(args, fmt.Sprintf("%s%05d", come, i))
					}
					c.CommandInt(append([]string{"DEL"}, args...)...)
				}
				_, err = c.CommandInt(append([]string{"DEL"}, kept...)...)
				return err
			}),
		},
	}
}

// typeChecks are the checks of TYPE.
func typeChecks() []Check {
	return []Check{
		{
			Name:    "TYPE of a string, a hash, a sorted set, and none",
			Section: sectionScan("TYPE"),
			Hint:    "TYPE answers a simple string: +string, +hash, +zset, or +none for a missing key",
			Run: dialed(func(e *Env, c *Conn) error {
				s, h, z := "conform:ts", "conform:th", "conform:tz"
				c.CommandExpect(integer(0), "DEL", s, h, z)
				return c.steps(
					ex(okReply, "SET", s, "v"),
					ex(integer(1), "HSET", h, "f", "v"),
					ex(integer(1), "ZADD", z, "1", "m"),
					ex("+string\r\n", "TYPE", s),
					ex("+hash\r\n", "TYPE", h),
					ex("+zset\r\n", "type", z),
					ex("+none\r\n", "TYPE", "conform:tnone"),
					ex(arity("type"), "TYPE"),
					ex(arity("type"), "TYPE", s, h),
					ex(integer(3), "DEL", s, h, z),
					ex("+none\r\n", "TYPE", s),
				)
			}),
		},
	}
}
