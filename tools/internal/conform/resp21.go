package conform

import (
	"slices"
	"strings"
)

// The ch21 stage: the RESP listener with the book's commands. Its framing
// (arrays and inline lines, requests in pieces, protocol errors),
// pipelining, PING and ECHO, checked as on Redis; the rest of Redis's
// commands and options are the ch24 stage's.
func resp21Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(respStringChecks()[:1], respFramingChecks(), respPipeliningChecks()[:2], respNotChecked21())
}

// respNotChecked21 says what the ch21 stage leaves out.
func respNotChecked21() []Check {
	return []Check{
		{
			Name: "not checked: what chapter 21 does not claim",
			Skip: "RESP3, HELLO and the handshake commands come in chapter 23, Redis's commands with their options in chapter 24, " +
				"replies larger than the write buffer in chapter 22 (ch21_resp2/README.md)",
		},
	}
}

// The ch22 stage: the RESP listener's bounds. A value far larger than a
// read buffer, in a request and in a reply, goes through whole.
func resp22Checks(st *Stage, cfg *Config) []Check {
	return []Check{
		{
			Name: "a 1 MiB value, SET and read back with GET",
			Hint: "a request and a reply may be far larger than one read or one write buffer: grow the buffers (geometrically) until they hold it",
			Run: dialed(func(e *Env, c *Conn) error {
				val := strings.Repeat("0123456789abcdef", 64<<10)
				if err := c.steps(ex(okReply, "SET", "conform:huge", val), ex(bulk(val), "GET", "conform:huge")); err != nil {
					return err
				}
				return c.CommandExpect(integer(1), "DEL", "conform:huge")
			}),
		},
	}
}
