package conform

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Hints shared by several checks.
const (
	hintFraming = "a request is u32 length + body; a length over k_max_msg, or a body that does not parse, ends that connection only, with no reply"
	hintHang    = "after a reply that could not be written at once, the server must go on with requests already in its read buffer"
)

// badFrame is one kind of malformed input.
type badFrame struct {
	name    string
	send    func(e *Env) []byte
	replies func(e *Env) [][]byte // answers to the valid requests in front
	hangUp  bool                  // the client closes instead of waiting
}

func framingCases(st *Stage) []badFrame {
	tooLong := func(e *Env) []byte { return le32(uint32(e.maxMsg() + 1)) }
	cases := []badFrame{
		{name: "a length above k_max_msg closes the connection", send: tooLong},
	}
	if st.Proto.TextMessages() {
		cases = append(cases,
			badFrame{name: "a request then a bad length in one write: the request is answered, then the connection closed",
				send:    func(e *Env) []byte { return append(Frame([]byte("first")), le32(1<<31)...) },
				replies: func(e *Env) [][]byte { return [][]byte{e.echoOf("first")} }},
		)
	} else {
		cases = append(cases,
			badFrame{name: "nstr above k_max_args closes the connection",
				send: func(e *Env) []byte { return Frame(le32(uint32(e.maxArgs() + 1))) }},
			badFrame{name: "a string running past the body closes the connection",
				send: func(e *Env) []byte { return Frame(cat(le32(1), le32(10), []byte("short"))) }},
			badFrame{name: "fewer strings than nstr closes the connection",
				send: func(e *Env) []byte { return Frame(cat(le32(2), le32(3), []byte("get"))) }},
			badFrame{name: "a body too short for nstr closes the connection",
				send: func(e *Env) []byte { return Frame([]byte("ab")) }},
			badFrame{name: "trailing bytes after the last string close the connection",
				send: func(e *Env) []byte { return Frame(cat(le32(1), le32(3), []byte("get"), []byte("junk"))) }},
			badFrame{name: "a request then a bad length in one write: the request is answered, then the connection closed",
				send:    func(e *Env) []byte { return cat(e.Req("get", "conform:absent"), le32(1<<31)) },
				replies: func(e *Env) [][]byte { return [][]byte{e.missing()} }},
			badFrame{name: "a request then a bad body in one write: the request is answered, then the connection closed",
				send:    func(e *Env) []byte { return cat(e.Req("get", "conform:absent"), Frame(cat(le32(1), le32(1<<20)))) },
				replies: func(e *Env) [][]byte { return [][]byte{e.missing()} }},
		)
	}
	cases = append(cases,
		badFrame{name: "a client hanging up inside a request is dropped", hangUp: true,
			send: func(e *Env) []byte { return e.someRequest()[:7] }},
		badFrame{name: "a client hanging up inside the length header is dropped", hangUp: true,
			send: func(e *Env) []byte { return []byte{9, 0} }},
	)
	return cases
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// echoOf is the reply a ch04/ch06 server gives to body.
func (e *Env) echoOf(body string) []byte {
	if e.stage.Proto.Pipelined() {
		return []byte(body) // ch06 echoes
	}
	return []byte("world") // ch04 answers world
}

// missing is the reply to get on a missing key.
func (e *Env) missing() []byte {
	if e.stage.Proto.StatusReplies() {
		return e.Res(2, "")
	}
	return e.Nil()
}

// okSet is the reply to a successful set.
func (e *Env) okSet() []byte {
	if e.stage.Proto.StatusReplies() {
		return e.Res(0, "")
	}
	return e.Nil()
}

// value is the reply to get on a key holding v.
func (e *Env) value(v string) []byte {
	if e.stage.Proto.StatusReplies() {
		return e.Res(0, v)
	}
	return e.Str(v)
}

// deleted is the reply to del on a key that existed (ok = true) or not.
func (e *Env) deleted(ok bool) []byte {
	if e.stage.Proto.StatusReplies() {
		return e.Res(0, "")
	}
	if ok {
		return e.Int(1)
	}
	return e.Int(0)
}

// someRequest is a valid request of the stage's format.
func (e *Env) someRequest() []byte {
	if e.stage.Proto.TextMessages() {
		return Frame([]byte("a request cut short"))
	}
	return e.Req("set", "conform:cut", "short")
}

// bystander is a connection kept open across a bad client's visit: the
// server must keep serving it.
type bystander struct {
	e *Env
	c *Conn
	n int
}

func newBystander(e *Env) (*bystander, error) {
	c, err := e.Dial()
	if err != nil {
		return nil, err
	}
	b := &bystander{e: e, c: c}
	if !e.stage.Proto.TextMessages() {
		if err := c.Cmd(e.okSet(), "set", "conform:bystander", "v"); err != nil {
			return nil, fmt.Errorf("bystander: %v", err)
		}
	}
	return b, b.ping()
}

func (b *bystander) ping() error {
	b.n++
	var err error
	if b.e.stage.Proto.TextMessages() {
		body := fmt.Sprintf("bystander %d", b.n)
		err = b.c.Do(Frame([]byte(body)), b.e.echoOf(body))
	} else {
		err = b.c.Cmd(b.e.value("v"), "get", "conform:bystander")
	}
	if err != nil {
		return fmt.Errorf("the bystander connection was not served: %v", err)
	}
	return nil
}

func framingChecks(st *Stage) []Check {
	var out []Check
	for _, bf := range framingCases(st) {
		bf := bf
		out = append(out, Check{
			Name: "bad input: " + bf.name,
			Hint: hintFraming,
			Run: func(e *Env) error {
				// ch04 serves one client at a time: a bystander would
				// block it, so there the next client is checked instead.
				var by *bystander
				if st.Proto.Pipelined() {
					var err error
					if by, err = newBystander(e); err != nil {
						return err
					}
				}
				c, err := e.Dial()
				if err != nil {
					return err
				}
				req := bf.send(e)
				if err := c.Send(req); err != nil {
					return err
				}
				if bf.replies != nil {
					for _, want := range bf.replies(e) {
						if err := c.Expect(req, want); err != nil {
							return err
						}
					}
				}
				if bf.hangUp {
					c.Close()
				} else if err := c.ExpectClosed("after " + e.showRequest(req)); err != nil {
					return err
				}
				if by != nil {
					return by.ping()
				}
				next, err := e.Dial()
				if err != nil {
					return err
				}
				body := "next client"
				return next.Do(Frame([]byte(body)), e.echoOf(body))
			},
		})
	}
	return out
}

// biggestServed returns the size of the biggest message the checks of the
// message limit send: k_max_msg, or under the newer edition (newer) the
// size above, a little over the 2023 limit and far below 32 MiB.
func (e *Env) biggestServed(newer bool, above int) int {
	if newer {
		return above
	}
	return e.maxMsg()
}

// echoChecks are the checks of the framed text protocol (ch04, ch06).
func echoChecks(st *Stage, cfg *Config) []Check {
	newerMsg := cfg.Edition == EditionNewer && st.Num >= 6
	maxName, maxHint := "a message of k_max_msg (4096) bytes is served", "k_max_msg bounds the body, not counting the 4-byte length"
	if newerMsg {
		maxName, maxHint = "a message above 4096 bytes is served (newer edition: k_max_msg is 32 MiB)", "the newer edition raises k_max_msg to 32 MiB from chapter 06"
	}
	out := []Check{
		{
			Name: maxName,
			Hint: maxHint,
			Run: dialed(func(e *Env, c *Conn) error {
				n := e.biggestServed(newerMsg, 4097)
				body := strings.Repeat("m", n)
				return c.Do(Frame([]byte(body)), e.echoOf(body))
			}),
		},
		{
			Name: "a request written byte by byte is answered",
			Hint: "a request may arrive over many reads; keep what has arrived until it is whole",
			Run: dialed(func(e *Env, c *Conn) error {
				req := Frame([]byte("one byte at a time"))
				if err := c.SendBytewise(req); err != nil {
					return err
				}
				return c.Expect(req, e.echoOf("one byte at a time"))
			}),
		},
		{
			Name: "requests on one connection are answered in turn",
			Run: dialed(func(e *Env, c *Conn) error {
				for _, b := range []string{"a", "bb", "", "ccc"} {
					if err := c.Do(Frame([]byte(b)), e.echoOf(b)); err != nil {
						return err
					}
				}
				return nil
			}),
		},
	}
	if st.Proto.Pipelined() {
		out = append(out, Check{
			Name: "pipelining: requests sent in one write are all answered in order",
			Hint: "one read may bring several requests: handle every whole one in the buffer",
			Run: dialed(func(e *Env, c *Conn) error {
				var all []byte
				bodies := []string{"a", "bb", "", "ccc"}
				for _, b := range bodies {
					all = append(all, Frame([]byte(b))...)
				}
				if err := c.Send(all); err != nil {
					return err
				}
				for _, b := range bodies {
					if err := c.Expect(all, e.echoOf(b)); err != nil {
						return err
					}
				}
				return nil
			}),
		}, partialWritesCheck(st))
	}
	return append(out, framingChecks(st)...)
}

// partialWritesCheck pipelines far more replies than the socket buffers
// hold while reading nothing for a moment, so the server's writes stop
// half way. The book's event loop then leaves the requests still in its
// read buffer until more bytes arrive: reported as a warning, after one
// more request has shown that everything else was intact.
func partialWritesCheck(st *Stage) Check {
	return Check{
		Name:    "pipelining: 2000 requests with 4 KB replies, read late, are all answered (writes that block)",
		Hint:    hintHang,
		Timeout: 120 * time.Second,
		Run: dialed(func(e *Env, c *Conn) error {
			const count = 2000
			var req, want []byte
			if st.Proto.TextMessages() {
				body := strings.Repeat("p", 4000)
				req, want = Frame([]byte(body)), e.echoOf(body)
			} else {
				val := strings.Repeat("p", 4000)
				if err := c.Cmd(e.okSet(), "set", "conform:big", val); err != nil {
					return err
				}
				req, want = e.Req("get", "conform:big"), e.value(val)
			}
			written := c.writeRepeated(req, count)
			// How long a silence counts as a stall: generous, but from
			// chapter 12 on below the 5 s after which the book's server
			// drops an idle connection.
			stall := 8 * time.Second
			if st.Num >= 12 {
				stall = 3 * time.Second
			}
			nudged := false
			for i := 0; i < count; i++ {
				c.SetTimeout(stall)
				err := c.Expect(req, want)
				if err != nil && !nudged && i > 0 && !e.died() && strings.Contains(err.Error(), "no reply before") {
					// Stalled: one more request shows whether the
					// server was waiting for bytes it already had.
					c.SetTimeout(0)
					if err := c.Send(req); err != nil {
						return err
					}
					nudged = true
					err = c.Expect(req, want)
					if err == nil {
						e.Warn("the server stopped answering after %d of %d pipelined requests and went on only when more bytes arrived: the book's event loop does not go back to requests left in its read buffer after a write that would block (the pipelining hang; see docs/ch06_eventloop.md)", i, count)
					}
				}
				if err != nil {
					return fmt.Errorf("reply %d of %d: %v", i+1, count, err)
				}
			}
			c.SetTimeout(0)
			if nudged {
				if err := c.Expect(req, want); err != nil {
					return err
				}
			}
			return <-written
		}),
	}
}

// commandChecks are the checks shared by every chapter whose requests are
// lists of strings (ch07 on).
func commandChecks(st *Stage, cfg *Config) []Check {
	newer := cfg.Edition == EditionNewer
	out := slices.Concat(commandBasicChecks(st, newer), commandLimitChecks(st, newer))
	out = append(out, framingChecks(st)...)
	if st.Proto.Serialized() {
		out = append(out, keysChecks(st, cfg)...)
	}
	return out
}

// commandBasicChecks are the checks of set, get and del, of unknown
// commands and arity, and of the case of command names.
func commandBasicChecks(st *Stage, newer bool) []Check {
	out := []Check{
		{
			Name: "set, get, del answer with the chapter's replies",
			Hint: replyHint(st),
			Run: dialed(func(e *Env, c *Conn) error {
				steps := []struct {
					want []byte
					args []string
				}{
					{e.deleted(false), []string{"del", "conform:k"}},
					{e.missing(), []string{"get", "conform:k"}},
					{e.okSet(), []string{"set", "conform:k", "v"}},
					{e.value("v"), []string{"get", "conform:k"}},
					{e.okSet(), []string{"set", "conform:k", "v2"}},
					{e.value("v2"), []string{"get", "conform:k"}},
					{e.deleted(true), []string{"del", "conform:k"}},
					{e.missing(), []string{"get", "conform:k"}},
					{e.okSet(), []string{"set", "conform:empty", ""}},
					{e.value(""), []string{"get", "conform:empty"}},
					{e.deleted(true), []string{"del", "conform:empty"}},
				}
				for _, s := range steps {
					if err := c.Cmd(s.want, s.args...); err != nil {
						return err
					}
				}
				return nil
			}),
		},
		{
			Name:       "an unknown command gets the unknown-command error",
			Hint:       "unknown commands answer " + unknownText(st, newer),
			Unverified: newer,
			Run: dialed(func(e *Env, c *Conn) error {
				for _, args := range [][]string{{"aaa", "bbb"}, {"nosuchcommand"}, {}} {
					if err := c.Cmd(e.Unknown(), args...); err != nil {
						return err
					}
				}
				return nil
			}),
		},
		{
			Name:       "arity: a known command with the wrong number of arguments is an unknown command",
			Hint:       "the book matches the command's name and its argument count together",
			Unverified: newer,
			Run: dialed(func(e *Env, c *Conn) error {
				for _, args := range [][]string{{"get"}, {"get", "a", "b"}, {"set", "k"}, {"set", "k", "v", "x"}, {"del"}, {"del", "a", "b"}} {
					if err := c.Cmd(e.Unknown(), args...); err != nil {
						return err
					}
				}
				if st.Proto.Serialized() {
					return c.Cmd(e.Unknown(), "keys", "extra")
				}
				return nil
			}),
		},
	}
	if newer {
		out = append(out, Check{
			Name:       "command names are case-sensitive (newer edition)",
			Unverified: true,
			Run: dialed(func(e *Env, c *Conn) error {
				return c.Cmd(e.Unknown(), "GET", "conform:k")
			}),
		})
	} else {
		out = append(out, Check{
			Name: "command names are case-insensitive; keys are not",
			Hint: "compare command names ignoring case (the book uses strcasecmp)",
			Run: dialed(func(e *Env, c *Conn) error {
				if err := c.Cmd(e.okSet(), "SET", "conform:Key", "v"); err != nil {
					return err
				}
				if err := c.Cmd(e.value("v"), "gEt", "conform:Key"); err != nil {
					return err
				}
				if err := c.Cmd(e.missing(), "get", "conform:key"); err != nil {
					return err
				}
				return c.Cmd(e.deleted(true), "DeL", "conform:Key")
			}),
		})
	}
	return out
}

// commandLimitChecks are the checks of the message and argument limits, and
// of requests that arrive byte by byte or pipelined.
func commandLimitChecks(st *Stage, newer bool) []Check {
	maxName, maxHint := "a request of exactly k_max_msg (4096) bytes is served", "k_max_msg bounds the request body, not counting its 4-byte length"
	argsHint := "k_max_args (1024) bounds nstr; a 4096-byte message holds at most 1023 empty strings"
	if newer {
		maxName, maxHint = "a request above 4096 bytes is served (newer edition: k_max_msg is 32 MiB)", "the newer edition raises k_max_msg to 32 MiB from chapter 06"
		argsHint = "the newer edition's k_max_args is 200000"
	}
	return []Check{
		Check{
			Name: maxName,
			Hint: maxHint,
			Run: dialed(func(e *Env, c *Conn) error {
				size := e.biggestServed(newer, 5000)
				// body: nstr, then set, the key and the value with their lengths.
				key := "conform:max"
				val := strings.Repeat("x", size-4-(4+3)-(4+len(key))-4)
				req := e.Req("set", key, val)
				if len(req)-4 != size {
					return fmt.Errorf("internal: request body of %d bytes", len(req)-4)
				}
				if err := c.Do(req, e.okSet()); err != nil {
					return err
				}
				if err := c.Cmd(e.value(val), "get", key); err != nil {
					return err
				}
				return c.Cmd(e.deleted(true), "del", key)
			}),
		},
		Check{
			Name:       "the argument limit: the most strings a message holds are parsed (an unknown command)",
			Hint:       argsHint,
			Unverified: newer,
			Run: dialed(func(e *Env, c *Conn) error {
				n := (e.maxMsg() - 4) / 4
				if n > e.maxArgs() {
					n = e.maxArgs()
				}
				return c.Do(e.Req(make([]string, n)...), e.Unknown())
			}),
		},
		Check{
			Name: "a request written byte by byte is answered",
			Hint: "a request may arrive over many reads; keep what has arrived until it is whole",
			Run: dialed(func(e *Env, c *Conn) error {
				req := e.Req("set", "conform:slow", "one byte at a time")
				if err := c.SendBytewise(req); err != nil {
					return err
				}
				if err := c.Expect(req, e.okSet()); err != nil {
					return err
				}
				if err := c.Cmd(e.value("one byte at a time"), "get", "conform:slow"); err != nil {
					return err
				}
				return c.Cmd(e.deleted(true), "del", "conform:slow")
			}),
		},
		Check{
			Name:       "pipelining: requests sent in one write are all answered in order",
			Hint:       "one read may bring several requests: handle every whole one in the buffer",
			Unverified: newer,
			Run: dialed(func(e *Env, c *Conn) error {
				reqs := [][]string{{"set", "conform:p", "1"}, {"get", "conform:p"}, {"del", "conform:p"}, {"get", "conform:p"}, {"nope"}}
				wants := [][]byte{e.okSet(), e.value("1"), e.deleted(true), e.missing(), e.Unknown()}
				var all []byte
				for _, r := range reqs {
					all = append(all, e.Req(r...)...)
				}
				if err := c.Send(all); err != nil {
					return err
				}
				for i, w := range wants {
					if err := c.Expect(e.Req(reqs[i]...), w); err != nil {
						return err
					}
				}
				return nil
			}),
		},
		partialWritesCheck(st),
	}
}

func replyHint(st *Stage) string {
	if st.Proto.StatusReplies() {
		return "chapter 07 replies are u32 status (RES_OK 0, RES_ERR 1, RES_NX 2) then the data"
	}
	if st.Proto.Tags().HasDbl {
		return "tags from chapter 11: NIL 0, ERR 1, STR 2, INT 3, DBL 4, ARR 5; set answers nil, del the number of keys removed"
	}
	return "tags in chapters 09-10: NIL 0, ERR 1, STR 2, INT 3, ARR 4; set answers nil, del the number of keys removed"
}

func unknownText(st *Stage, newer bool) string {
	switch {
	case st.Proto.StatusReplies() && newer:
		return "status 1 with no data"
	case st.Proto.StatusReplies():
		return `status RES_ERR (1) with "Unknown cmd"`
	case newer:
		return `err 1 "unknown command."`
	}
	return `err ERR_UNKNOWN (1) "Unknown cmd"`
}
