package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"example.com/byor/ch38_blocking/heap"
	"example.com/byor/ch38_blocking/waitq"
)

// The blocking view drives chapter 38's package waitq: clients that ran a
// blocking pop on keys that held nothing, parked in a queue per key, and
// the keys made ready by a command, served after it in the order they
// became ready. The lists themselves are plain slices here (chapter 37's
// view draws the quicklist); the timeouts are chapter 38's heap of timers,
// on a clock that only moves with tick. The order of everything follows
// ch38_blocking/server/blocking.go: blockOn, blockPark, blockSignal,
// blockServeReady, blockServe and blockTimeouts.

func blockingView() *view {
	return &view{
		name:    "blocking",
		chapter: "ch38_blocking",
		title:   "blocking: clients parked in a queue per key, served when the key is created (chapter 38)",
		help: "C blpop K... [SECS] · C brpop K... [SECS] · C blmove SRC DST [left|right left|right] [SECS] · " +
			"rpush K V... · lpush K V... · tick SECS · unblock C [error] · close C " +
			"(C names a client, e.g. c1; a last word that is a number is the timeout, 0 or none: forever)",
		make: func() world { return &blockWorld{} },
		scenarios: []scenario{
			{"two clients on one key, served in order", []string{"c1 blpop k1", "c2 blpop k1", "rpush k1 a b c"}},
			{"one client on two keys: served by the first created, it leaves both queues", []string{"c1 blpop k1 k2", "c2 blpop k2", "rpush k2 x", "rpush k1 y"}},
			{"a wake-up lost: the first waiter takes the only element", []string{"c1 blpop k1", "c2 blpop k1", "rpush k1 a", "rpush k1 b"}},
			{"a BLMOVE chain: each move creates the next key", []string{"c1 blmove a b", "c2 blmove b c", "c3 blpop c", "rpush a x"}},
			{"a timeout leaves the others parked", []string{"c1 blpop k1 2", "c2 blpop k1", "tick 1", "tick 1", "rpush k1 a"}},
		},
	}
}

// Bounds on what commands may build, so that a replay's time and memory
// are bounded whatever its commands: names, keys per command, clients,
// elements in all the lists together (a move keeps the total), and the
// seconds of a timeout or a tick.
const (
	maxBlockName  = 12
	maxBlockKeys  = 8
	maxClients    = 16
	maxBlockElems = 256
	maxBlockSecs  = 1_000_000
)

// Bounds on the picture: rows of each part, and cells of a row.
const (
	maxBlockRows  = 12
	maxBlockCells = 10
)

// bclient is a client, what it ran and what became of it; q is its place
// in the queues while it is parked, as the server's waiter embeds it.
type bclient struct {
	name string
	q    waitq.Waiter[bclient]
	// Its blocking command: BLPOP (left) or BRPOP, or BLMOVE from src to
	// dst, popping at from's end and pushing at to's (true: the left).
	cmd      string
	left     bool
	src, dst string
	from, to bool
	// dueMs is when it times out (0: never), timerIdx its place in the
	// heap of timers (-1: none), parked whether it waits.
	dueMs    uint64
	timerIdx int32
	parked   bool
	state    string // what it shows when not parked
}

func bTimerIdx(c *bclient) *int32 { return &c.timerIdx }

// served is one waiter served from a key after a command, or left parked
// there (stayed) because the key held nothing more.
type served struct {
	key, client string
	stayed      bool
}

type blockWorld struct {
	lists   map[string][]string
	elems   int // in all the lists
	clients []*bclient
	queues  waitq.Queues[bclient]
	ready   waitq.Ready
	timers  []heap.HeapItem[bclient]
	nowMs   uint64
	parked  int
	serving bool

	// What the last command did, to draw: the keys ready when it ended,
	// those served after it in order, and the clients it touched.
	readyAtEnd []string
	servedLog  []served
	touched    map[string]string // client name → highlight
	keysHit    map[string]bool   // lists it created, changed or emptied
}

func (w *blockWorld) client(name string) *bclient {
	for _, c := range w.clients {
		if c.name == name {
			return c
		}
	}
	return nil
}

// validName reports whether s may name a client, a key or an element:
// ASCII letters, digits and "_-.:", up to maxBlockName bytes.
func validName(s string) bool {
	if s == "" || len(s) > maxBlockName {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("_-.:", b) >= 0) {
			return false
		}
	}
	return true
}

// secs reads a number of seconds as blockTimeout does, into milliseconds
// rounded up; ok is false for what is not a number, and msg then says why.
func secs(s string) (ms uint64, msg string, ok bool) {
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !strings.Contains(err.Error(), "out of range"), math.IsNaN(f):
		return 0, "ERR timeout is not a float or out of range", false
	case f < 0:
		return 0, "ERR timeout is negative", false
	case f > maxBlockSecs: // 1e999 too, which a long double holds
		return 0, fmt.Sprintf("the explorer takes up to %d seconds", maxBlockSecs), false
	}
	return uint64(math.Ceil(f * 1000)), "", true
}

// isNumber reports whether a word reads as a number of seconds (or would,
// but for its range), so that it is taken as the timeout.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || strings.Contains(err.Error(), "out of range")
}

// showSecs writes milliseconds as seconds: 2 s, 2.5 s.
func showSecs(ms uint64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s"
}

func lower(s string) string {
	if !isASCII(s) {
		return ""
	}
	return strings.ToLower(s)
}

func (w *blockWorld) do(args []string) (string, []string) {
	w.readyAtEnd, w.servedLog = nil, nil
	w.touched, w.keysHit = map[string]string{}, map[string]bool{}
	if len(args) == 0 {
		return unknown()
	}
	var reply string
	var ran []string
	switch name := lower(args[0]); {
	case (name == "rpush" || name == "lpush") && len(args) >= 3:
		reply, ran = w.push(name == "lpush", args)
	case is(args, "tick", 2):
		return w.tick(args[1])
	case name == "unblock" && (len(args) == 2 || len(args) == 3):
		return w.unblock(args)
	case is(args, "close", 2):
		c := w.client(args[1])
		if c == nil || c.state == "closed" {
			return replyErr("no such client"), nil
		}
		ran = []string{"server.connDone: the connection is gone"}
		if c.parked {
			ran = append(ran, indent("  ", w.unpark(c))...)
		}
		c.state = "closed"
		w.touched[c.name] = hlHit
		return "closed", ran
	case len(args) >= 2 && slices.Contains(blockingCmds, lower(args[1])) && !slices.Contains(worldCmds, name):
		reply, ran = w.blocking(args)
	default:
		return unknown()
	}
	// What a command made ready is served after it, before the next one
	// (resp_conn.go calls blockServeReady once blockReady is not empty).
	w.readyAtEnd = slices.Clone(w.ready.Keys())
	if w.ready.Len() > 0 {
		ran = append(ran, w.serveReady()...)
	}
	return reply, ran
}

// blocking is C blpop, brpop or blmove: blockOn, then blockPark.
func (w *blockWorld) blocking(args []string) (string, []string) {
	name, cmd := args[0], lower(args[1])
	if !validName(name) {
		return replyErr(fmt.Sprintf("a client is named by up to %d letters, digits or _-.:", maxBlockName)), nil
	}
	rest := args[2:]
	var timeoutMs uint64
	if len(rest) > 0 && isNumber(rest[len(rest)-1]) {
		ms, msg, ok := secs(rest[len(rest)-1])
		if !ok {
			return replyErr(msg), nil
		}
		timeoutMs, rest = ms, rest[:len(rest)-1]
	}
	c := &bclient{name: name, cmd: cmd, left: cmd == "blpop", timerIdx: -1}
	keys := rest
	if cmd == "blmove" {
		c.from, c.to = false, true // BRPOPLPUSH's ends
		switch len(rest) {
		case 2:
		case 4:
			from, to := lower(rest[2]), lower(rest[3])
			if from != "left" && from != "right" || to != "left" && to != "right" {
				return replyErr("ERR syntax error"), nil
			}
			c.from, c.to = from == "left", to == "left"
		default:
			return replyErr("ERR wrong number of arguments for 'blmove' command"), nil
		}
		c.src, c.dst = rest[0], rest[1]
		keys = rest[:1]
	}
	if len(keys) == 0 {
		return replyErr(fmt.Sprintf("ERR wrong number of arguments for '%s' command", cmd)), nil
	}
	if len(keys) > maxBlockKeys {
		return replyErr(fmt.Sprintf("the explorer takes up to %d keys a command", maxBlockKeys)), nil
	}
	for _, k := range append(slices.Clone(keys), c.dst) {
		if k != "" && !validName(k) {
			return replyErr(fmt.Sprintf("a key is named by up to %d letters, digits or _-.:", maxBlockName)), nil
		}
	}
	old := w.client(name)
	switch {
	case old != nil && old.parked:
		return replyErr(name + " is parked: the server reads its next request once it is answered"), nil
	case old == nil && len(w.clients) == maxClients:
		return replyErr(fmt.Sprintf("the explorer takes up to %d clients", maxClients)), nil
	case old != nil:
		*old = *c // the same client, a new command
		c = old
	default:
		w.clients = append(w.clients, c)
	}
	c.q.Owner = c
	w.touched[name] = hlHit

	// blockOn: the first key that holds a list pops at once.
	for _, k := range keys {
		if n := len(w.lists[k]); n > 0 {
			looked := fmt.Sprintf("server.blockOn: %s holds %s: no wait", k, plural(n, "element"))
			reply, ran := w.pop(c, k)
			c.state = "answered at once: " + reply
			return reply, append([]string{looked}, ran...)
		}
	}
	// blockPark: a place in each key's queue, and a timer.
	bkeys := make([][]byte, len(keys))
	for i, k := range keys {
		bkeys[i] = []byte(k)
	}
	looked := w.queues.Park(&c.q, bkeys)
	c.parked = true
	w.parked++
	w.touched[name] = hlNew
	var places []string
	for _, k := range c.q.Keys() {
		n := 0
		w.queues.Each(k, func(*bclient) bool { n++; return true })
		places = append(places, fmt.Sprintf("%s's #%d", k, n))
	}
	hold := "holds"
	if len(keys) > 1 {
		hold = "hold"
	}
	ran := []string{
		fmt.Sprintf("server.blockOn: %s %s nothing", strings.Join(keys, ", "), hold),
		fmt.Sprintf("server.blockPark: waitq.(*Queues).Park(%s): %s looked at; %s is %s", name, plural(looked, "key"), name, strings.Join(places, ", ")),
	}
	if timeoutMs > 0 {
		c.dueMs = w.nowMs + timeoutMs
		heap.Upsert(&w.timers, -1, heap.HeapItem[bclient]{Val: c.dueMs, Owner: c}, bTimerIdx)
		ran = append(ran, fmt.Sprintf("heap.Upsert: %s times out at %s", name, showSecs(c.dueMs)))
	}
	return "(no reply yet: " + name + " is parked)", ran
}

// The blocking commands a client runs, and the commands of the world,
// which no client is named after.
var (
	blockingCmds = []string{"blpop", "brpop", "blmove"}
	worldCmds    = []string{"rpush", "lpush", "tick", "unblock", "close"}
)

// pop is a blocking command's pop from key, which holds a list: listBPop
// for BLPOP and BRPOP, listBMove for BLMOVE (which may create its
// destination, and so make it ready).
func (w *blockWorld) pop(c *bclient, key string) (string, []string) {
	l := w.lists[key]
	left := c.left
	if c.cmd == "blmove" {
		left = c.from
	}
	var v string
	if left {
		v, l = l[0], l[1:]
	} else {
		v, l = l[len(l)-1], l[:len(l)-1]
	}
	w.keysHit[key] = true
	if c.cmd != "blmove" {
		w.setList(key, l)
		w.elems--
		end := "RPOP"
		if left {
			end = "LPOP"
		}
		return fmt.Sprintf("(arr) len=2 %s %s", key, v), []string{fmt.Sprintf("server.listBPop: %s %s (logged so)", end, key)}
	}
	// listMove: the destination is looked up (created if need be) before
	// the source loses its element, so a move within one list keeps it.
	created := w.lists[c.dst] == nil && c.dst != key
	w.setList(key, l)
	w.push1(c.dst, v, c.to)
	w.keysHit[c.dst] = true
	ran := []string{fmt.Sprintf("server.listBMove: LMOVE %s %s %s %s (logged so)", key, c.dst, end(c.from), end(c.to))}
	if created {
		ran = append(ran, w.signal(c.dst)...)
	}
	return "(str) " + v, ran
}

func end(left bool) string {
	if left {
		return "LEFT"
	}
	return "RIGHT"
}

// setList stores a list, deleting its key when it is empty.
func (w *blockWorld) setList(key string, l []string) {
	if len(l) == 0 {
		delete(w.lists, key)
		return
	}
	w.lists[key] = l
}

// push1 pushes one element at one end of key's list, creating it.
func (w *blockWorld) push1(key, v string, left bool) {
	if w.lists == nil {
		w.lists = map[string][]string{}
	}
	if left {
		w.lists[key] = append([]string{v}, w.lists[key]...)
	} else {
		w.lists[key] = append(w.lists[key], v)
	}
}

// signal is blockSignal for a key just created: ready if a client waits.
func (w *blockWorld) signal(key string) []string {
	if w.parked == 0 || !w.queues.Waited(key) {
		return nil
	}
	w.ready.Add(key)
	when := "after the command"
	if w.serving {
		when = "served in turn"
	}
	return []string{fmt.Sprintf("server.blockSignal: %s is created and waited on: waitq.(*Ready).Add(%s), %s", key, key, when)}
}

// push is rpush and lpush: a key created signals its waiters.
func (w *blockWorld) push(left bool, args []string) (string, []string) {
	key, vals := args[1], args[2:]
	if !validName(key) {
		return replyErr(fmt.Sprintf("a key is named by up to %d letters, digits or _-.:", maxBlockName)), nil
	}
	for _, v := range vals {
		if !validName(v) {
			return replyErr(fmt.Sprintf("an element is up to %d letters, digits or _-.:", maxBlockName)), nil
		}
	}
	if w.elems+len(vals) > maxBlockElems {
		return replyErr(fmt.Sprintf("the explorer holds up to %d elements in all", maxBlockElems)), nil
	}
	created := w.lists[key] == nil
	for _, v := range vals {
		w.push1(key, v, left)
	}
	w.elems += len(vals)
	w.keysHit[key] = true
	what := "pushed onto"
	if created {
		what = "created with"
	}
	ran := []string{fmt.Sprintf("server.respPushOf: %s %s %s", key, what, plural(len(vals), "element"))}
	if created {
		ran = append(ran, w.signal(key)...)
	}
	return replyInt(int64(len(w.lists[key]))), ran
}

// serveReady is blockServeReady: each ready key, in the order it became
// ready, serves the head of its queue while it holds something; a move
// that creates a waited-on key adds it, to be served in turn.
func (w *blockWorld) serveReady() []string {
	w.serving = true
	defer func() { w.serving = false }()
	var ran []string
	for key, ok := w.ready.Take(); ok; key, ok = w.ready.Take() {
		ran = append(ran, fmt.Sprintf("server.blockServeReady: waitq.(*Ready).Take() = %s", key))
		for {
			c := w.queues.Head(key)
			if c == nil {
				ran = append(ran, fmt.Sprintf("  waitq.(*Queues).Head(%s) = nil: no one waits on %s now", key, key))
				break
			}
			if len(w.lists[key]) == 0 {
				ran = append(ran, fmt.Sprintf("  waitq.(*Queues).Head(%s) = %s, but %s holds nothing now: %s stays parked", key, c.name, key, c.name))
				w.servedLog = append(w.servedLog, served{key: key, client: c.name, stayed: true})
				break
			}
			ran = append(ran, fmt.Sprintf("  waitq.(*Queues).Head(%s) = %s: server.blockServe", key, c.name))
			ran = append(ran, indent("    ", w.unpark(c))...)
			w.servedLog = append(w.servedLog, served{key: key, client: c.name})
			reply, popped := w.pop(c, key)
			ran = append(ran, indent("    ", popped)...)
			ran = append(ran, fmt.Sprintf("    %s is answered %s", c.name, reply))
			c.state = fmt.Sprintf("woken on %s: %s", key, reply)
			w.touched[c.name] = hlHit
		}
	}
	ran = append(ran, "server.blockServeReady: waitq.(*Ready).Take() = none: every ready key served")
	return ran
}

// unpark is blockUnpark: out of every queue, and its timer.
func (w *blockWorld) unpark(c *bclient) []string {
	keys := strings.Join(c.q.Keys(), " ")
	n := w.queues.Unpark(&c.q)
	ran := []string{fmt.Sprintf("server.blockUnpark: waitq.(*Queues).Unpark(%s): out of %s (%s)", c.name, plural(n, "queue"), keys)}
	if c.timerIdx >= 0 {
		heap.Delete(&w.timers, int(c.timerIdx), bTimerIdx)
		ran = append(ran, fmt.Sprintf("heap.Delete: %s's timer", c.name))
	}
	c.parked = false
	w.parked--
	return ran
}

// indent puts prefix before each of lines, to show what a step called.
func indent(prefix string, lines []string) []string {
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return lines
}

// tick moves the clock, then answers the clients whose timeout is due,
// as processTimers and blockTimeouts do: a timer less than 1 ms away
// counts as due.
func (w *blockWorld) tick(arg string) (string, []string) {
	ms, _, ok := secs(arg)
	if !ok {
		return replyErr(fmt.Sprintf("tick takes a number of seconds, up to %d", maxBlockSecs)), nil
	}
	w.nowMs += ms
	ran := []string{fmt.Sprintf("poll() sleeps; the clock is now %s", showSecs(w.nowMs)), "server.blockTimeouts: look at the earliest timer"}
	for len(w.timers) > 0 && w.timers[0].Val < w.nowMs+1 {
		c := w.timers[0].Owner
		ran = append(ran, fmt.Sprintf("  %s is due at %s: server.blockEnd answers (nil)", c.name, showSecs(c.dueMs)))
		ran = append(ran, indent("    ", w.unpark(c))...)
		c.state = fmt.Sprintf("timed out at %s: (nil)", showSecs(c.dueMs))
		w.touched[c.name] = hlDue
	}
	return "ok", ran
}

// unblock is CLIENT UNBLOCK: a parked client is answered as its timeout
// would answer it, or with an error.
func (w *blockWorld) unblock(args []string) (string, []string) {
	text := ""
	if len(args) == 3 {
		switch lower(args[2]) {
		case "error":
			text = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
		case "timeout":
		default:
			return replyErr("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"), nil
		}
	}
	c := w.client(args[1])
	if c == nil || !c.parked {
		return replyInt(0), []string{"server.respClientUnblock: no such client parked"}
	}
	answer := replyNil()
	if text != "" {
		answer = replyErr(text)
	}
	ran := []string{fmt.Sprintf("server.respClientUnblock: server.blockEnd(%s) answers %s", c.name, answer)}
	ran = append(ran, indent("  ", w.unpark(c))...)
	c.state = "unblocked: " + answer
	w.touched[c.name] = hlHit
	return replyInt(1), ran
}

// waitedKeys returns the keys waited on, by name (WaitedKeys has no
// order).
func (w *blockWorld) waitedKeys() []string {
	var keys []string
	w.queues.WaitedKeys(func(k string) { keys = append(keys, k) })
	slices.Sort(keys)
	return keys
}

// stateOf is what a client's row says about it.
func (w *blockWorld) stateOf(c *bclient) string {
	if !c.parked {
		return c.state
	}
	cmd := c.cmd
	if c.cmd == "blmove" {
		cmd = fmt.Sprintf("blmove to %s", c.dst)
	}
	due := "no timeout"
	if c.dueMs > 0 {
		due = "times out at " + showSecs(c.dueMs)
	}
	return fmt.Sprintf("parked on %s (%s), %s", strings.Join(c.q.Keys(), " "), cmd, due)
}

func (w *blockWorld) draw() string {
	var c canvas
	waited := w.waitedKeys()
	c.text(0, 12, "title", fmt.Sprintf("now %s; %s parked, %s waited on", showSecs(w.nowMs), plural(w.parked, "client"), plural(len(waited), "key")))
	y := 24

	// The queues, a row per key: the key, then its waiters, first first.
	c.text(0, y+12, "title", "queues (waitq.Queues), first parked first served")
	y += 20
	if len(waited) == 0 {
		c.text(0, y+12, "sub", "no client waits")
		y += 20
	}
	for i, k := range waited {
		if i == maxBlockRows {
			c.text(0, y+12, "sub", fmt.Sprintf("+%d more keys", len(waited)-i))
			y += 20
			break
		}
		cells := []cell{{label: k, sub: "holds nothing", attrs: fmt.Sprintf(` data-queue="%s"`, esc(k))}}
		n := 0
		w.queues.Each(k, func(cl *bclient) bool {
			if n == maxBlockCells {
				return false
			}
			n++
			sub := "no timeout"
			if cl.dueMs > 0 {
				sub = "due " + showSecs(cl.dueMs)
			}
			cells = append(cells, cell{label: cl.name, sub: sub, hl: w.touched[cl.name], attrs: fmt.Sprintf(` data-waiter="%s/%s"`, esc(k), esc(cl.name))})
			return true
		})
		c.drawRow(0, y, cells, true)
		y += cellH + gapY
	}

	// The keys the last command made ready, in the order they were
	// taken, each with whom it served.
	y += 6
	c.text(0, y+12, "title", "ready keys (waitq.Ready), served after the command in this order")
	y += 20
	var order []string
	for _, s := range w.servedLog {
		if len(order) == 0 || order[len(order)-1] != s.key {
			order = append(order, s.key)
		}
	}
	// A key taken whose queue was gone by then served no one.
	for _, k := range w.readyAtEnd {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	if len(order) == 0 {
		c.text(0, y+12, "sub", "none: the last command created no key a client waits on")
		y += 20
	} else {
		var cells []cell
		var lines []string
		for i, k := range order {
			if i == maxBlockCells {
				break
			}
			var got []string
			line := k + ": served "
			for _, s := range w.servedLog {
				switch {
				case s.key != k:
				case s.stayed:
					line += fmt.Sprintf(", then empty: %s stays parked", s.client)
				default:
					got = append(got, s.client)
				}
			}
			if len(got) == 0 {
				line = strings.Replace(line, "served ", "served no one", 1)
			}
			line = strings.Replace(line, "served ", "served "+strings.Join(got, " "), 1)
			cells = append(cells, cell{label: k, sub: fmt.Sprintf("%d served", len(got)), hl: hlHit, attrs: fmt.Sprintf(` data-ready="%s"`, esc(k))})
			lines = append(lines, line)
		}
		c.drawRow(0, y, cells, false)
		y += cellH + gapY
		c.text(0, y+8, "sub", "ready when the command ended: "+strings.Join(w.readyAtEnd, " ")+"; a move served may make its destination ready in turn")
		y += 18
		for _, l := range lines {
			c.text(0, y+8, "sub", l)
			y += 14
		}
	}

	// The clients.
	y += 6
	c.text(0, y+12, "title", "clients")
	y += 20
	if len(w.clients) == 0 {
		c.text(0, y+12, "sub", "none yet: a command such as c1 blpop k1 starts one")
		y += 20
	}
	for i, cl := range w.clients {
		if i == maxBlockRows {
			c.text(0, y+12, "sub", fmt.Sprintf("+%d more clients", len(w.clients)-i))
			y += 20
			break
		}
		kind := "answered"
		switch {
		case cl.parked:
			kind = "parked"
		case cl.state == "closed":
			kind = "closed"
		case strings.HasPrefix(cl.state, "timed out"):
			kind = "timed out"
		}
		c.box(0, y, cell{label: cl.name, sub: kind, hl: w.touched[cl.name], attrs: fmt.Sprintf(` data-client="%s" data-state="%s"`, esc(cl.name), kind)})
		c.text(cellW+gapX, y+21, "", w.stateOf(cl))
		y += cellH + 4
	}

	// The lists.
	y += 6
	c.text(0, y+12, "title", "lists")
	y += 20
	keys := make([]string, 0, len(w.lists))
	for k := range w.lists {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		c.text(0, y+12, "sub", "none: every key is empty")
		y += 20
	}
	for i, k := range keys {
		if i == maxBlockRows {
			c.text(0, y+12, "sub", fmt.Sprintf("+%d more lists", len(keys)-i))
			break
		}
		l := w.lists[k]
		hl := hlNone
		if w.keysHit[k] {
			hl = hlHit
		}
		cells := []cell{{label: k, sub: plural(len(l), "element"), hl: hl, attrs: fmt.Sprintf(` data-list="%s"`, esc(k))}}
		for j, v := range l {
			if j == maxBlockCells {
				break
			}
			cells = append(cells, cell{label: v})
		}
		rw := c.drawRow(0, y, cells, false)
		if len(l) > maxBlockCells {
			c.text(rw, y+21, "sub", fmt.Sprintf("+%d more", len(l)-maxBlockCells))
		}
		y += cellH + 4
	}
	return c.svg("blocking")
}
