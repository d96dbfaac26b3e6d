package conform

import (
	"slices"
	"strconv"
	"strings"
)

// genericKeyChecks are the checks of the generic key commands chapter 29 adds.
// Redis compared with may have 16 databases, the chapter has one: the
// indexes checked are 0 and 16, which answer alike in both.
func genericKeyChecks() []Check {
	return slices.Concat(keyMoveChecks(), keyServerChecks())
}

// keyMoveChecks are the checks of RENAME, RENAMENX and COPY, which move
// or copy a value with its TTL.
func keyMoveChecks() []Check {
	// The keys of the checks below that are only steps.
	a, b, z := "conform:k19:a", "conform:k19:b", "conform:k19:z"
	s, t, h, h2 := "conform:k19:s", "conform:k19:t", "conform:k19:h", "conform:k19:h2"
	return []Check{
		{
			Name:    "RENAME and RENAMENX move the value and its TTL",
			Section: section29("", "Keys"),
			Hint:    "RENAME replaces what the new key held (its TTL too); RENAMENX answers 0 if the new key exists; a missing source is ERR no such key",
			Run: freshSteps([]string{a, b, z},
				ex("-ERR no such key\r\n", "RENAME", a, b),
				ex(okReply, "SET", a, "v"),
				ex(integer(1), "PEXPIREAT", a, "4000000000000"),
				ex(okReply, "SET", b, "w", "EX", "100"),
				ex(okReply, "RENAME", a, b),
				ex(integer(0), "EXISTS", a),
				ex(bulk("v"), "GET", b),
				ex(integer(4000000000000), "PEXPIRETIME", b),
				ex(integer(2), "ZADD", z, "1", "m", "2", "n"),
				ex(integer(0), "RENAMENX", z, b),
				ex(integer(1), "RENAMENX", z, a),
				ex(bulks("m", "n"), "ZRANGE", a, "0", "-1"),
				ex(okReply, "RENAME", a, a),
				ex(integer(0), "RENAMENX", a, a),
				ex(integer(2), "DEL", a, b),
			),
		},
		{
			Name:    "COPY copies any value with its TTL; REPLACE, DB 0 and its errors",
			Section: section29("", "Keys"),
			Hint:    "COPY answers 1, or 0 if the source is missing or the destination exists without REPLACE; the copy is a value of its own; the same key is ERR source and destination objects are the same",
			Run: freshSteps([]string{s, t, h, h2},
				ex(integer(0), "COPY", s, t),
				ex(okReply, "SET", s, "v"),
				ex(integer(1), "PEXPIREAT", s, "4000000000123"),
				ex("-ERR source and destination objects are the same\r\n", "COPY", s, s),
				ex(integer(1), "COPY", s, t),
				ex(integer(4000000000123), "PEXPIRETIME", t),
				ex(integer(0), "COPY", s, t),
				ex(okReply, "SET", t, "other"),
				ex(integer(1), "COPY", s, t, "DB", "0", "REPLACE"),
				ex(bulk("v"), "GET", t),
				ex("-ERR DB index is out of range\r\n", "COPY", s, t, "DB", "16"),
				ex(notInt, "COPY", s, t, "DB", "x"),
				ex(syntaxErr, "COPY", s, t, "REPLACE", "x"),
				ex(integer(2), "HSET", h, "f", "1", "g", "2"),
				ex(integer(1), "COPY", h, h2),
				ex(integer(0), "HSET", h2, "g", "3"),
				ex(bulk("2"), "HGET", h, "g"),
				ex(integer(-1), "TTL", h2),
				ex(integer(4), "DEL", s, t, h, h2),
			),
		},
	}
}

// keyServerChecks are the checks of the commands about keys and the
// server rather than a value: TOUCH, RANDOMKEY, TIME, SWAPDB, MOVE,
// OBJECT, MEMORY USAGE and INFO's command counters.
func keyServerChecks() []Check {
	// The keys of the checks below that are only steps.
	touch, obj := "conform:k19:touch", "conform:k19:obj"
	return []Check{
		{
			Name:    "TOUCH, RANDOMKEY, TIME, and SWAPDB and MOVE out of range",
			Section: section29("", "Keys"),
			Hint:    "TOUCH counts the keys that exist; RANDOMKEY answers a key; TIME answers [seconds, microseconds] as bulk strings; an index past the server's databases is ERR DB index is out of range",
			Run: freshSteps([]string{touch},
				ex(okReply, "SET", touch, "v"),
				ex(integer(2), "TOUCH", touch, touch, "conform:k19:nosuch"),
				ex("-ERR DB index is out of range\r\n", "SWAPDB", "0", "16"),
				ex("-ERR invalid first DB index\r\n", "SWAPDB", "x", "0"),
				ex("-ERR DB index is out of range\r\n", "MOVE", touch, "16"),
				ex("-ERR source and destination objects are the same\r\n", "MOVE", touch, "0"),
				form("$<len> <a key>", keysSomeBulk, "RANDOMKEY"),
				form("*2 $<seconds> $<microseconds>", keysTime, "TIME"),
				ex(integer(1), "DEL", touch),
			),
		},
		{
			Name:    "OBJECT and MEMORY USAGE",
			Section: section29("", "Keys"),
			Hint:    "null for a missing key; OBJECT FREQ is an error without an LFU policy; MEMORY USAGE is a positive estimate; a subcommand's arity error names it as object|encoding",
			Run: freshSteps([]string{obj},
				ex(nullBulk, "OBJECT", "ENCODING", obj),
				ex(nullBulk, "OBJECT", "FREQ", obj),
				ex(nullBulk, "MEMORY", "USAGE", obj),
				ex(okReply, "SET", obj, "some value"),
				ex(arity("object|encoding"), "OBJECT", "ENCODING"),
				ex(syntaxErr, "MEMORY", "USAGE", obj, "SAMPLES", "-1"),
				ex("-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.\r\n",
					"OBJECT", "FREQ", obj),
				intIn(1, 1<<20, "MEMORY", "USAGE", obj),
				intIn(0, 1<<30, "OBJECT", "IDLETIME", obj),
				form("$<len> <an encoding's name>", keysSomeBulk, "OBJECT", "ENCODING", obj),
				ex(integer(1), "DEL", obj),
			),
		},
		{
			Name:    "INFO: commandstats counts refused and failed calls; the replication offset",
			Section: section29("", "Keys"),
			Hint:    "INFO commandstats has cmdstat_<name>:calls=..,usec=..,usec_per_call=..,rejected_calls=..,failed_calls=..; INFO (default) has master_repl_offset and no rejected_calls",
			Run: dialed(func(e *Env, c *Conn) error {
				k := c.fresh("conform:k19:info")
				before, err := c.keysCmdStat("touch")
				if err != nil {
					return err
				}
				if err := c.steps(
					ex(arity("touch"), "TOUCH"),
					ex(integer(0), "TOUCH", k),
				); err != nil {
					return err
				}
				after, err := c.keysCmdStat("touch")
				if err != nil {
					return err
				}
				if after["calls"] != before["calls"]+1 || after["rejected_calls"] != before["rejected_calls"]+1 {
					return &Mismatch{Request: command("INFO", "commandstats"),
						Want: []byte("cmdstat_touch with calls and rejected_calls one more each after TOUCH and TOUCH k"),
						Got:  []byte(keysStatLine(before) + " then " + keysStatLine(after)), e: e}
				}
				return c.expectForm("the default sections: master_repl_offset, no rejected_calls", func(got []byte) bool {
					return strings.Contains(string(got), "\r\nmaster_repl_offset:") && !strings.Contains(string(got), "rejected_calls")
				}, "INFO")
			}),
		},
	}
}

// keysSomeBulk reports whether got is a bulk string that is not empty.
func keysSomeBulk(got []byte) bool {
	return len(got) >= 4 && got[0] == '$' && string(got) != nullBulk
}

// keysTime reports whether got is TIME's reply: seconds and microseconds,
// as bulk strings of digits.
func keysTime(got []byte) bool {
	parts, ok := splitBulks(got)
	return ok && len(parts) == 2 && keysDigits(parts[0]) && keysDigits(parts[1]) && len(parts[1]) <= 6
}

// keysDigits reports whether s is a non-empty run of decimal digits.
func keysDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// keysCmdStat reads INFO commandstats' counters of the command name: none
// yet is all zeros.
func (c *Conn) keysCmdStat(name string) (map[string]int64, error) {
	req, got, err := c.CommandReply("INFO", "commandstats")
	if err != nil {
		return nil, err
	}
	text := string(got)
	if !strings.Contains(text, "# Commandstats") {
		return nil, &Mismatch{Request: req, Want: []byte("# Commandstats ..."), Got: got, e: c.e}
	}
	stats := map[string]int64{}
	for _, line := range strings.Split(text, "\r\n") {
		rest, ok := strings.CutPrefix(line, "cmdstat_"+name+":")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, &Mismatch{Request: req, Want: []byte("cmdstat_" + name + ":calls=<n>,..."), Got: []byte(line), e: c.e}
			}
			stats[k] = int64(n)
		}
	}
	return stats, nil
}

// keysStatLine shows the counters keysCmdStat read.
func keysStatLine(s map[string]int64) string {
	return "calls=" + strconv.FormatInt(s["calls"], 10) + ",rejected_calls=" + strconv.FormatInt(s["rejected_calls"], 10)
}
