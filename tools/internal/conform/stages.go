package conform

import (
	"fmt"
	"strings"
	"time"

	"example.com/byor/tools/internal/wire"
)

// kind is a stage's wire format.
type kind int

const (
	kindHello  kind = iota // ch03: bare bytes, "hello" then "world"
	kindEcho               // ch04, ch06: framed text messages
	kindStatus             // ch07-ch08: list-of-strings requests, u32 status replies
	kindSer                // ch09 on: serialized replies
)

// Stage is one chapter's checks.
type Stage struct {
	ID        string // "ch07"
	Num       int    // 7
	Dir       string // the chapter's directory, for its scripts
	Title     string
	Section   string // where in the book the stage comes from
	Kind      kind
	Pipelined bool      // ch06 on: the client sends its hellos at once
	Tags      wire.Tags // kindSer: the tag numbering
	// extra returns the stage's own checks beyond the shared ones.
	extra func(st *Stage, cfg *Config) []Check
}

// Check is one thing checked against the server.
type Check struct {
	Name    string
	Section string // "" means the stage's
	Hint    string
	// Fresh: the check needs an empty key space. Under -server the
	// server is restarted for it; otherwise it is skipped, unless
	// FreshOptional says it can run (less strictly) on a shared one.
	Fresh         bool
	FreshOptional bool
	// Slow: it waits several seconds by design.
	Slow    bool
	Timeout time.Duration
	// Unverified: the expected value (of the newer edition) rests on a
	// single source, so a mismatch is reported but does not fail.
	Unverified bool
	// Skip, if set, is why the check does not apply.
	Skip string
	Run  func(e *Env) error
}

var stages = []*Stage{
	{ID: "ch03", Num: 3, Dir: "ch03_hello", Title: "hello server/client", Section: "03. Hello Server/Client", Kind: kindHello},
	{ID: "ch04", Num: 4, Dir: "ch04_protocol", Title: "length-prefixed messages", Section: "04. Protocol Parsing", Kind: kindEcho},
	{ID: "ch06", Num: 6, Dir: "ch06_eventloop", Title: "the event loop", Section: "06. The Event Loop Implementation", Kind: kindEcho, Pipelined: true},
	{ID: "ch07", Num: 7, Dir: "ch07_basic", Title: "get, set, del", Section: "07. Basic Server: get, set, del", Kind: kindStatus, Pipelined: true},
	{ID: "ch08", Num: 8, Dir: "ch08_hashtable", Title: "the hashtable", Section: "08. Data Structure: Hashtables", Kind: kindStatus, Pipelined: true, extra: resizeChecks},
	{ID: "ch09", Num: 9, Dir: "ch09_serialize", Title: "serialized replies", Section: "09. Data Serialization", Kind: kindSer, Pipelined: true, Tags: wire.Tags09},
	{ID: "ch10", Num: 10, Dir: "ch10_avl", Title: "the AVL tree (no wire change)", Section: "10. The AVL Tree: Implementation & Testing", Kind: kindSer, Pipelined: true, Tags: wire.Tags09},
	{ID: "ch11", Num: 11, Dir: "ch11_zset", Title: "sorted sets", Section: "11. The AVL Tree and the Sorted Set", Kind: kindSer, Pipelined: true, Tags: wire.Tags11, extra: zsetChecks},
	{ID: "ch12", Num: 12, Dir: "ch12_timers", Title: "idle timers", Section: "12. The Event Loop and Timers", Kind: kindSer, Pipelined: true, Tags: wire.Tags11, extra: idleChecks},
	{ID: "ch13", Num: 13, Dir: "ch13_heap_ttl", Title: "key TTLs", Section: "13. The Heap Data Structure and the TTL", Kind: kindSer, Pipelined: true, Tags: wire.Tags11, extra: ttlChecks},
	{ID: "ch14", Num: 14, Dir: "ch14_threadpool", Title: "the thread pool", Section: "14. The Thread Pool & Asynchronous Tasks", Kind: kindSer, Pipelined: true, Tags: wire.Tags11, extra: poolChecks},
	{ID: "ch15", Num: 15, Dir: "ch15_field_ttl", Title: "beyond the book: hash fields with TTLs", Section: "beyond the book: the Valkey RFC on hash field TTLs (ch15_field_ttl/README.md)", Kind: kindSer, Pipelined: true, Tags: wire.Tags11, extra: fieldTTLChecks},
	{ID: "ch16", Num: 16, Dir: "ch16_performance", Title: "beyond the book: performance", Section: "beyond the book: the book's speed exercises (ch16_performance/README.md)", Kind: kindSer, Pipelined: true, Tags: wire.Tags11, extra: outputChecks},
}

// Stages returns every stage, in chapter order.
func Stages() []*Stage { return stages }

// StageIDs returns the stage ids in chapter order.
func StageIDs() []string {
	var ids []string
	for _, st := range stages {
		ids = append(ids, st.ID)
	}
	return ids
}

// StageByID returns the stage with id, or nil.
func StageByID(id string) *Stage {
	for _, st := range stages {
		if st.ID == id {
			return st
		}
	}
	return nil
}

// UpTo returns the ids of the stages from ch03 up to and including id.
func UpTo(id string) ([]string, error) {
	if StageByID(id) == nil {
		return nil, fmt.Errorf("unknown stage %q (known: %s)", id, strings.Join(StageIDs(), " "))
	}
	var ids []string
	for _, st := range stages {
		ids = append(ids, st.ID)
		if st.ID == id {
			break
		}
	}
	return ids, nil
}

// Checks returns the stage's checks for cfg, in the order they run.
func (st *Stage) Checks(cfg *Config) []Check {
	out := sessionChecks(st, cfg)
	switch st.Kind {
	case kindHello:
		// The session is the whole wire of chapter 03.
	case kindEcho:
		out = append(out, echoChecks(st, cfg)...)
	default:
		out = append(out, commandChecks(st, cfg)...)
	}
	if st.extra != nil {
		out = append(out, st.extra(st, cfg)...)
	}
	if cfg.Edition == EditionNewer {
		for i := range out {
			if out[i].Unverified {
				out[i].Name += " [newer edition: unverified]"
			}
		}
	}
	return out
}
