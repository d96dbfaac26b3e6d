package conform

import (
	"fmt"
	"slices"
	"strings"
)

// The ch26 stage: what chapter 26 adds to the RESP listener, as Redis 7.0
// answers it, byte for byte: transactions, and INFO.

// section26 points a check at the part of chapter 26's README it tests.
func section26(topic string) string {
	return "beyond the book: " + topic + " (ch26_transactions/README.md)"
}

const (
	queued     = "+QUEUED\r\n"
	nullArray  = "*-1\r\n"
	execAbort  = "-EXECABORT Transaction discarded because of previous errors.\r\n"
	overflow   = "-ERR increment or decrement would overflow\r\n"
	notFloatMM = "-ERR min or max is not a float\r\n"
)

// tx sends cmds in one write and checks their replies, in order.
func (c *Conn) tx(want []string, cmds ...[]string) error {
	var all []byte
	for _, cmd := range cmds {
		all = append(all, command(cmd...)...)
	}
	if err := c.Send(all); err != nil {
		return err
	}
	for i, cmd := range cmds {
		if err := c.ExpectRESP(command(cmd...), want[i]); err != nil {
			return fmt.Errorf("in %s:\n%v", showRESPRequest(all), err)
		}
	}
	return nil
}

// info sends INFO with args and returns the text of its reply.
func (c *Conn) info(args ...string) (string, error) {
	req, got, err := c.CommandReply(args...)
	if err != nil {
		return "", err
	}
	if len(got) < 4 || got[0] != '$' || string(got) == nullBulk {
		return "", &Mismatch{Request: req, Want: []byte("$<len> # Server... (one bulk string of lines)"), Got: got, e: c.e}
	}
	return string(got[strings.IndexByte(string(got), '\n')+1 : len(got)-2]), nil
}

// resp26Checks are the ch26 stage's checks.
func resp26Checks(st *Stage, cfg *Config) []Check {
	return slices.Concat(multiExecChecks(), watchChecks(), infoChecks(), respFieldTTLChecks(), []Check{{
		Name: "not checked: what chapter 26 does not claim",
		Skip: "INFO's fields other than the keyspace's and the totals CONFIG RESETSTAT zeroes (their values differ between servers), commands that cannot be queued in MULTI (SUBSCRIBE), " +
			"and Redis's other commands, the everyday ones (INCR, MGET, ZRANK, ...) among them, which the stages of chapters 27 and 30 check (ch26_transactions/README.md)",
	}})
}

// multiExecChecks are the checks of MULTI, EXEC and DISCARD, and of their
// errors.
func multiExecChecks() []Check {
	return []Check{
		{
			Name:    "MULTI queues commands; EXEC answers the array of their replies, a runtime error as one element",
			Section: section26("MULTI and EXEC"),
			Hint:    "after MULTI every command is checked (name, arity) and answered +QUEUED, and nothing runs; EXEC runs them all in one go and answers an array of their replies; a command that fails when run (WRONGTYPE, not an integer) is just its own element and the others apply: nothing rolls back",
			Run: dialed(func(e *Env, c *Conn) error {
				k, s, z := "conform:tx18", "conform:tx18s", "conform:tx18z"
				c.CommandExpect(integer(0), "DEL", k, s, z)
				if err := c.steps(ex(okReply, "SET", s, "text"), ex(integer(1), "ZADD", z, "1", "m")); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, queued, queued, queued, queued, queued, queued,
					array(okReply, bulk("1"), notInt, wrongType, bulk("2"), "+PONG\r\n")},
					[]string{"MULTI"}, []string{"SET", k, "1"}, []string{"SET", k, "2", "GET"}, []string{"EXPIRE", s, "x"},
					[]string{"GET", z}, []string{"GET", k}, []string{"PING"}, []string{"EXEC"}); err != nil {
					return err
				}
				if err := c.steps(ex(bulk("2"), "GET", k), ex(bulk("text"), "GET", s)); err != nil {
					return err
				}
				// Nothing is applied before EXEC: another connection sees
				// the old values while the transaction is queued.
				o, err := e.Dial()
				if err != nil {
					return err
				}
				if err := c.steps(ex(okReply, "MULTI"), ex(queued, "SET", k, "3"), ex(queued, "DEL", s)); err != nil {
					return err
				}
				if err := o.steps(ex(bulk("2"), "GET", k), ex(integer(1), "EXISTS", s)); err != nil {
					return fmt.Errorf("another connection, before EXEC: %v", err)
				}
				if err := c.steps(ex(array(okReply, integer(1)), "EXEC")); err != nil {
					return err
				}
				if err := o.steps(ex(bulk("3"), "GET", k), ex(integer(0), "EXISTS", s)); err != nil {
					return fmt.Errorf("another connection, after EXEC: %v", err)
				}
				if err := c.tx([]string{okReply, array()}, []string{"MULTI"}, []string{"EXEC"}); err != nil {
					return fmt.Errorf("an empty transaction: %v", err)
				}
				return c.steps(ex(integer(2), "DEL", k, z))
			}),
		},
		{
			Name:    "MULTI's errors: a command refused while queuing aborts EXEC; nested MULTI; DISCARD; EXEC and DISCARD without MULTI",
			Section: section26("MULTI and EXEC"),
			Hint:    "an unknown command or a wrong number of arguments after MULTI is answered its error and marks the transaction: EXEC then answers -EXECABORT Transaction discarded because of previous errors. and runs nothing; a nested MULTI is only an error; DISCARD drops the queue; EXEC and DISCARD outside MULTI are errors",
			Run: dialed(func(e *Env, c *Conn) error {
				k := c.fresh("conform:txerr")
				if err := c.steps(ex(okReply, "SET", k, "old")); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, queued,
					"-ERR unknown command 'NOSUCH', with args beginning with: 'x' \r\n",
					arity("get"), queued, execAbort, bulk("old")},
					[]string{"MULTI"}, []string{"SET", k, "new"}, []string{"NOSUCH", "x"},
					[]string{"GET"}, []string{"DEL", k}, []string{"EXEC"}, []string{"GET", k}); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, "-ERR MULTI calls can not be nested\r\n", queued, array(okReply), bulk("nested")},
					[]string{"MULTI"}, []string{"MULTI"}, []string{"SET", k, "nested"}, []string{"EXEC"}, []string{"GET", k}); err != nil {
					return fmt.Errorf("a nested MULTI is an error that aborts nothing: %v", err)
				}
				if err := c.tx([]string{okReply, queued, okReply, bulk("nested"), "-ERR EXEC without MULTI\r\n", "-ERR DISCARD without MULTI\r\n"},
					[]string{"MULTI"}, []string{"SET", k, "dropped"}, []string{"DISCARD"}, []string{"GET", k},
					[]string{"EXEC"}, []string{"DISCARD"}); err != nil {
					return err
				}
				return c.steps(ex(arity("multi"), "MULTI", "x"), ex(arity("discard"), "DISCARD", "x"), ex(integer(1), "DEL", k))
			}),
		},
	}
}

// watchChecks are the checks of WATCH and UNWATCH.
func watchChecks() []Check {
	return []Check{
		{
			Name:    "WATCH: another connection's write makes EXEC answer the null array; no write, or UNWATCH, and EXEC runs",
			Section: section26("WATCH"),
			Hint:    "WATCH marks keys; a write to one of them (by any connection, the watcher's own included, a missing key created) before EXEC makes EXEC run nothing and answer *-1; EXEC, DISCARD and UNWATCH forget the watched keys; WATCH inside MULTI is an error that aborts nothing",
			Run: dialed(func(e *Env, c *Conn) error {
				o, err := e.Dial()
				if err != nil {
					return err
				}
				k, missing := "conform:watch", "conform:watchmissing"
				c.CommandExpect(integer(0), "DEL", k, missing)
				get := []string{"GET", k}
				if err := c.steps(ex(okReply, "SET", k, "1"), ex(okReply, "WATCH", k)); err != nil {
					return err
				}
				if err := o.CommandExpect(okReply, "SET", k, "other"); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, queued, nullArray, bulk("other")},
					[]string{"MULTI"}, []string{"SET", k, "mine"}, []string{"EXEC"}, get); err != nil {
					return fmt.Errorf("a watched key written by another connection: %v", err)
				}
				// EXEC forgot the watch: the same write again changes
				// nothing for the next transaction.
				if err := o.CommandExpect(okReply, "SET", k, "other2"); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, queued, array(okReply)},
					[]string{"MULTI"}, []string{"SET", k, "mine"}, []string{"EXEC"}); err != nil {
					return fmt.Errorf("after EXEC, no key is watched any more: %v", err)
				}
				// Watched, and only read by the other connection: EXEC
				// runs (and may write the watched keys itself).
				if err := c.steps(ex(okReply, "WATCH", k, missing)); err != nil {
					return err
				}
				if err := o.CommandExpect(bulk("mine"), "GET", k); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, queued, queued, array(okReply, okReply)},
					[]string{"MULTI"}, []string{"SET", missing, "1"}, []string{"SET", k, "tx"}, []string{"EXEC"}); err != nil {
					return fmt.Errorf("watched keys nobody wrote: %v", err)
				}
				// A missing key, watched, then created by another
				// connection.
				c.CommandExpect(integer(1), "DEL", missing)
				if err := c.steps(ex(okReply, "WATCH", missing)); err != nil {
					return err
				}
				if err := o.CommandExpect(okReply, "SET", missing, "x"); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, queued, nullArray}, []string{"MULTI"}, get, []string{"EXEC"}); err != nil {
					return fmt.Errorf("a watched missing key created by another connection: %v", err)
				}
				// The watching connection's own write, before MULTI.
				if err := c.tx([]string{okReply, okReply, okReply, queued, nullArray},
					[]string{"WATCH", k}, []string{"SET", k, "self"}, []string{"MULTI"}, get, []string{"EXEC"}); err != nil {
					return fmt.Errorf("a watched key written by the watching connection before MULTI: %v", err)
				}
				// UNWATCH, then a write: EXEC runs.
				if err := c.steps(ex(okReply, "WATCH", k)); err != nil {
					return err
				}
				if err := o.CommandExpect(okReply, "SET", k, "u"); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, okReply, queued, array(bulk("u"))},
					[]string{"UNWATCH"}, []string{"MULTI"}, get, []string{"EXEC"}); err != nil {
					return fmt.Errorf("after UNWATCH: %v", err)
				}
				// DISCARD forgets the watch too.
				if err := c.tx([]string{okReply, okReply, okReply}, []string{"WATCH", k}, []string{"MULTI"}, []string{"DISCARD"}); err != nil {
					return err
				}
				if err := o.CommandExpect(okReply, "SET", k, "d"); err != nil {
					return err
				}
				if err := c.tx([]string{okReply, queued, array(bulk("d"))}, []string{"MULTI"}, get, []string{"EXEC"}); err != nil {
					return fmt.Errorf("after DISCARD, no key is watched any more: %v", err)
				}
				// WATCH inside MULTI is refused, without aborting.
				if err := c.tx([]string{okReply, "-ERR WATCH inside MULTI is not allowed\r\n", queued, array(okReply)},
					[]string{"MULTI"}, []string{"WATCH", k}, []string{"SET", k, "w"}, []string{"EXEC"}); err != nil {
					return err
				}
				return c.steps(ex(arity("watch"), "WATCH"), ex(arity("unwatch"), "UNWATCH", k), ex(integer(2), "DEL", k, missing))
			}),
		},
	}
}

// infoChecks are the checks of INFO.
func infoChecks() []Check {
	return []Check{
		{
			Name:    "INFO: Redis's sections, and # Keyspace with db0:keys=N,expires=M",
			Section: section26("INFO"),
			Hint:    "INFO answers one bulk string of \"# Section\" headers and field:value lines ending in \\r\\n; the keyspace section has db0:keys=N,expires=M,avg_ttl=T while db 0 holds keys, and no db0 line when it is empty; INFO keyspace answers that section alone",
			Fresh:   true,
			Run: dialed(func(e *Env, c *Conn) error {
				// check reads INFO's sections from args and wants the db0
				// line to start with db0 ("" for none).
				check := func(db0 string, args ...string) error {
					text, err := c.info(args...)
					if err != nil {
						return err
					}
					req := command(args...)
					fail := func(why string) error {
						return fmt.Errorf("request:  %s\n%s\nreceived: %s", showRESPRequest(req), why, quoteClip([]byte(text)))
					}
					if !strings.HasSuffix(text, "\r\n") {
						return fail("expected lines ending in \\r\\n")
					}
					lines := strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n")
					if !slices.Contains(lines, "# Keyspace") {
						return fail("expected a line \"# Keyspace\"")
					}
					server := slices.Contains(lines, "# Server")
					if all := len(args) == 1; all && !server {
						return fail("expected the default sections, \"# Server\" among them")
					} else if !all && server {
						return fail("expected the keyspace section alone")
					}
					var found []string
					for _, l := range lines {
						if strings.HasPrefix(l, "db") {
							found = append(found, l)
						}
					}
					switch {
					case db0 == "" && len(found) > 0:
						return fail("expected no db line: the key space is empty")
					case db0 != "" && (len(found) != 1 || !strings.HasPrefix(found[0], db0)):
						return fail(fmt.Sprintf("expected one db line, %s<avg_ttl>", db0))
					}
					return nil
				}
				if err := check("", "INFO"); err != nil {
					return err
				}
				if err := c.steps(ex(okReply, "SET", "conform:i1", "v"), ex(okReply, "SET", "conform:i2", "v", "EX", "1000"),
					ex(integer(1), "ZADD", "conform:iz", "1", "m"), ex(integer(1), "HSET", "conform:ih", "f", "v")); err != nil {
					return err
				}
				if err := check("db0:keys=4,expires=1,avg_ttl=", "INFO"); err != nil {
					return err
				}
				if err := check("db0:keys=4,expires=1,avg_ttl=", "INFO", "keyspace"); err != nil {
					return err
				}
				if err := c.steps(ex(integer(2), "DEL", "conform:i2", "conform:iz")); err != nil {
					return err
				}
				if err := check("db0:keys=2,expires=0,avg_ttl=", "INFO", "KEYSPACE"); err != nil {
					return err
				}
				if err := c.steps(ex(okReply, "FLUSHALL")); err != nil {
					return err
				}
				return check("", "INFO", "keyspace")
			}),
		},
	}
}
