package conform

import (
	"errors"
	"fmt"
	"strings"
)

// respFieldTTLChecks are the checks of what the hash field TTL commands
// (Redis 7.4's and Valkey's, which Redis 7.0 does not have) answer where
// the two differ, in Valkey 9.0's words, which its own tests check; and of
// CONFIG RESETSTAT and INFO's counts of those TTLs.
func respFieldTTLChecks() []Check {
	const numFields = "-ERR numfields should be greater than 0 and match the provided number of fields\r\n"
	invalid := func(name string) string { return "-ERR invalid expire time in '" + name + "' command\r\n" }
	return []Check{
		{
			Name: "beyond Redis 7.0: the hash field TTL commands' errors in Valkey 9.0's words; a repeated option is taken",
			Hint: "a count that does not match the fields, or no FIELDS with a count after it, is ERR numfields should be greater than 0 and match the provided number of fields; " +
				"a time that is not an integer is ERR value is not an integer or out of range, a negative one ERR invalid expire time in '<command>' command; " +
				"NX with XX, GT or LT is ERR NX and XX, GT or LT options at the same time are not compatible; an option without an argument may come twice, as SET takes NX NX",
			Run: dialed(func(e *Env, c *Conn) error {
				if err := noFieldTTLs(c); err != nil {
					return err
				}
				k := "conform:hx"
				return c.steps(
					intIn(0, 1, "DEL", k),
					ex(integer(2), "HSET", k, "a", "1", "b", "2"),
					ex(numFields, "HEXPIRE", k, "10", "FIELDS", "2", "a"),
					ex(numFields, "HEXPIRE", k, "10", "NX", "NX", "FIELDS"),
					ex(notInt, "HEXPIRE", k, "abc", "FIELDS", "1", "a"),
					ex(invalid("hexpire"), "HEXPIRE", k, "-5", "FIELDS", "1", "a"),
					ex("-ERR NX and XX, GT or LT options at the same time are not compatible\r\n", "HEXPIRE", k, "10", "NX", "XX", "FIELDS", "1", "a"),
					ex("-ERR GT and LT options at the same time are not compatible\r\n", "HPEXPIREAT", k, "12345", "GT", "LT", "FIELDS", "1", "a"),
					ex(invalid("hsetex"), "HSETEX", k, "EX", "-1", "FIELDS", "1", "a", "1"),
					ex(notInt, "HSETEX", k, "PX", "x", "FIELDS", "1", "a", "1"),
					ex(numFields, "HSETEX", k, "PX", "100", "FIELDS", "1", "a", "1", "extra"),
					ex(numFields, "HSETEX", k, "KEEPTTL", "KEEPTTL", "KEEPTTL", "FIELDS"),
					ex(invalid("hgetex"), "HGETEX", k, "EX", "-10", "FIELDS", "1", "a"),
					ex(notInt, "HGETEX", k, "PXAT", "abc", "FIELDS", "1", "a"),
					ex(numFields, "HGETEX", k, "PERSIST", "PERSIST", "FIELDS"),
					ex(array(integer(-1), integer(-1)), "HTTL", k, "FIELDS", "2", "a", "b"),
					ex(integer(1), "HSETEX", k, "KEEPTTL", "KEEPTTL", "FIELDS", "1", "a", "1"),
					ex(array(integer(1)), "HEXPIRE", k, "100", "NX", "NX", "FIELDS", "1", "a"),
					ex(array(bulk("1")), "HGETEX", k, "PERSIST", "PERSIST", "FIELDS", "1", "a"),
					ex(array(integer(-1)), "HTTL", k, "FIELDS", "1", "a"),
					ex(integer(1), "DEL", k),
				)
			}),
		},
		{
			Name: "CONFIG RESETSTAT zeroes INFO's totals; INFO counts the hash fields expired and the hashes with field TTLs",
			Hint: "CONFIG RESETSTAT answers +OK and INFO stats then has total_connections_received:0, rejected_connections:0, expired_keys:0; " +
				"a field given a time not in the future counts in expired_fields (Valkey 9.0; Redis 7.4: expired_subkeys), and the keyspace line counts the hashes with a field TTL as keys_with_volatile_items=N (Redis 7.4: subexpiry=N)",
			Fresh: true,
			Run: dialed(func(e *Env, c *Conn) error {
				has := func(section string, wants ...string) error {
					text, err := c.info("INFO", section)
					if err != nil {
						return err
					}
					for _, want := range wants {
						for _, alt := range strings.Split(want, "|") {
							if strings.Contains("\r\n"+text, alt) {
								want = ""
								break
							}
						}
						if want != "" {
							return fmt.Errorf("request:  %s\nexpected %q in it\nreceived: %s", showRESPRequest(command("INFO", section)), strings.ReplaceAll(want, "|", " or "), quoteClip([]byte(text)))
						}
					}
					return nil
				}
				if err := c.steps(ex(okReply, "CONFIG", "RESETSTAT")); err != nil {
					return err
				}
				if err := has("stats", "\r\ntotal_connections_received:0\r\n", "\r\nrejected_connections:0\r\n", "\r\nexpired_keys:0\r\n"); err != nil {
					return err
				}
				var none *skip
				if err := noFieldTTLs(c); errors.As(err, &none) {
					return nil // what Redis 7.0 has is checked
				} else if err != nil {
					return err
				}
				k := "conform:hx"
				if err := c.steps(ex(integer(3), "HSET", k, "a", "1", "b", "2", "c", "3"),
					ex(array(integer(1)), "HPEXPIRE", k, "100000", "FIELDS", "1", "a")); err != nil {
					return err
				}
				if err := has("keyspace", ",keys_with_volatile_items=1\r\n|,keys_with_volatile_items=1,|,subexpiry=1\r\n|,subexpiry=1,"); err != nil {
					return err
				}
				if err := c.steps(ex(array(integer(2)), "HPEXPIRE", k, "0", "FIELDS", "1", "b")); err != nil {
					return err
				}
				if err := has("stats", "\r\nexpired_fields:1\r\n|\r\nexpired_subkeys:1\r\n"); err != nil {
					return err
				}
				if err := c.steps(ex(array(integer(1)), "HPERSIST", k, "FIELDS", "1", "a")); err != nil {
					return err
				}
				if err := has("keyspace", "\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n|,keys_with_volatile_items=0|,subexpiry=0"); err != nil {
					return err
				}
				return c.steps(ex(integer(1), "DEL", k))
			}),
		},
	}
}

// noFieldTTLs is a skip if the server has no hash field TTLs (Redis 7.0):
// HTTL is an unknown command there.
func noFieldTTLs(c *Conn) error {
	_, got, err := c.CommandReply("HTTL", "conform:hx", "FIELDS", "1", "a")
	if err != nil {
		return err
	}
	if strings.HasPrefix(string(got), "-ERR unknown command") {
		return &skip{"the server has no hash field TTLs (Redis 7.4's and Valkey's HEXPIRE family)"}
	}
	return nil
}
