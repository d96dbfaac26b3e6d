package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"example.com/byor/ch08_hashtable/hashtable"
)

// A world is one view's state: the chapter's structures, which commands
// change through the chapter's own functions. Each view is a world of its
// own, built fresh for every replay.
type world interface {
	// do runs one command, already split into words, and returns the reply
	// (in the client's notation) and the chapter functions that ran, in
	// order, each with what it did.
	do(args []string) (reply string, ran []string)
	// draw returns the state as SVG, highlighting what the last command
	// touched.
	draw() string
}

// A view is one of the pages: a chapter's structure.
type view struct {
	name    string // the view= parameter
	chapter string // the chapter whose packages drive it
	title   string
	help    string // the commands it understands
	// hashes is set when the view has a hashtable, so that rehash matters.
	hashes bool
	make   func() world
	// scenarios are scripted command lists for the page's menu, opened
	// with resizing work scenarioRehash if it is set.
	scenarios      []scenario
	scenarioRehash int
}

type scenario struct {
	name string
	cmds []string
}

// views lists the views in menu order, the chapters' order; byName finds
// one. The first is the page's default.
var views = []*view{hashtableView(), avlView(), zsetView(), timersView(), heapView(), keyspaceView(), listView(), blockingView()}

func byName(name string) *view {
	if i := slices.IndexFunc(views, func(v *view) bool { return v.name == name }); i >= 0 {
		return views[i]
	}
	return nil
}

// step is one replayed command.
type step struct {
	Cmd   string
	Reply string
	Ran   []string
}

// Limits on what a URL may ask for, so that a replay's work is bounded.
const (
	maxCmds    = 2000
	maxCmdLen  = 200
	maxRehash  = 1 << 20
	bookRehash = 128 // the book's k_rehashing_work
)

// splitCmds splits the cmds parameter: commands are separated by ';' or by
// line breaks, and blank ones are dropped.
func splitCmds(s string) []string {
	var out []string
	for _, c := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' || r == '\r' }) {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// replayMu serializes replays: the resizing work of the hashtable package
// is one setting for the whole process.
var replayMu sync.Mutex

// replay runs the first upto of cmds through a fresh world of v with
// resizing work rehash, and returns every command's step (all of them, so
// that the page can list what follows too) and the picture after upto.
func replay(v *view, cmds []string, rehash, upto int) ([]step, string) {
	replayMu.Lock()
	defer replayMu.Unlock()
	setRehash(rehash)
	defer setRehash(bookRehash)

	w := v.make()
	steps := make([]step, len(cmds))
	var pic string
	if upto == 0 {
		pic = w.draw()
	}
	for i, c := range cmds {
		steps[i].Cmd = c
		steps[i].Reply, steps[i].Ran = runOne(w, c)
		if i+1 == upto {
			pic = w.draw()
		}
	}
	return steps, pic
}

// runOne runs one command line on w, refusing what no chapter would take.
func runOne(w world, line string) (string, []string) {
	if len(line) > maxCmdLen {
		return "(err) command too long for the explorer", nil
	}
	args := strings.Fields(line)
	return w.do(args)
}

// setRehash sets the resizing work of every chapter's hashtable package
// that the views use.
func setRehash(n int) {
	for _, set := range rehashSetters {
		set(n)
	}
}

var rehashSetters = []func(int) int{hashtable.SetResizingWork}

// Replies, in the notation of the chapters' client.
func replyNil() string          { return "(nil)" }
func replyInt(n int64) string   { return fmt.Sprintf("(int) %d", n) }
func replyStr(s string) string  { return "(str) " + s }
func replyDbl(f float64) string { return "(dbl) " + strconv.FormatFloat(f, 'g', -1, 64) }
func replyErr(s string) string  { return "(err) " + s }

// unknown is what every chapter answers to a command it does not know, or
// to a known one with the wrong number of arguments.
func unknown() (string, []string) {
	return replyErr("Unknown cmd"), []string{"server.doRequest: no such command"}
}

// is compares a command name as the chapters do, ASCII letters folded.
func is(args []string, name string, n int) bool {
	return len(args) == n && strings.EqualFold(args[0], name) && isASCII(args[0])
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// plural returns "1 node", "2 nodes".
func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// advanceClock moves the simulated clock *now on by the milliseconds arg
// names, as "wait" does; it reports false, leaving the clock, if arg is
// not a number of milliseconds.
func advanceClock(now *uint64, arg string) bool {
	ms, err := strconv.ParseUint(arg, 10, 32)
	if err != nil {
		return false
	}
	*now += ms
	return true
}
