package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// replayView replays cmds in the named view and returns the steps and the picture
// after upto of them (-1: all).
func replayView(t *testing.T, name string, rehash int, cmds []string, upto int) ([]step, string) {
	t.Helper()
	v := byName(name)
	if v == nil {
		t.Fatalf("no view %q", name)
	}
	if upto < 0 {
		upto = len(cmds)
	}
	return replay(v, cmds, rehash, upto)
}

var (
	nodeAttr  = regexp.MustCompile(`data-node="([^"]*)"`)
	tableAttr = regexp.MustCompile(`data-table="([^"]*)"`)
	slotAttr  = regexp.MustCompile(`data-slot="([^"]*)"`)
)

// attrs returns the values of one attribute in a picture, in order.
func attrs(re *regexp.Regexp, svg string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestZSetDrawsEveryMember(t *testing.T) {
	cmds := numbered("zadd z %[1]d m%[1]d", 1, 8)
	for n := 0; n <= 7; n++ {
		_, pic := replayView(t, "zset", bookRehash, cmds, n)
		if got := len(attrs(nodeAttr, pic)); got != n {
			t.Errorf("after %d zadds: %d data-node elements, want %d", n, got, n)
		}
	}
	// Seven ascending inserts make a perfect tree: m4 at the root.
	_, pic := replayView(t, "zset", bookRehash, cmds, -1)
	if !strings.Contains(pic, `data-node="m4"`) || !strings.Contains(pic, "h=3 n=7") {
		t.Errorf("the root should be m4 with height 3 and count 7:\n%s", pic)
	}
}

func TestAVLNamesRotations(t *testing.T) {
	for _, tc := range []struct {
		cmds []string
		ran  string // what the last step's avl.Fix did
		root string // the first node drawn by in-order x is not the root; check the title
	}{
		{[]string{"add 1", "add 2", "add 3"}, "rotLeft(1)", "root 2"},
		{[]string{"add 3", "add 2", "add 1"}, "rotRight(3)", "root 2"},
		// Left-right: the child is straightened first, then the root turns.
		{[]string{"add 30", "add 10", "add 20"}, "rotLeft(10), rotRight(30)", "root 20"},
		{[]string{"add 10", "add 30", "add 20"}, "rotRight(30), rotLeft(10)", "root 20"},
		{[]string{"add 1", "add 2"}, "no rotation", "root 1"},
	} {
		steps, pic := replayView(t, "avl", bookRehash, tc.cmds, -1)
		last := strings.Join(steps[len(steps)-1].Ran, "\n")
		if !strings.Contains(last, tc.ran) {
			t.Errorf("%v: ran\n%s\nwant %q", tc.cmds, last, tc.ran)
		}
		if !strings.Contains(pic, ">"+tc.root+":") {
			t.Errorf("%v: picture does not say %q", tc.cmds, tc.root)
		}
		if got := strings.Count(pic, `class="rot"`); (tc.ran == "no rotation") != (got == 0) {
			t.Errorf("%v: %d nodes highlighted as rotated", tc.cmds, got)
		}
	}
}

func TestAVLDeleteKeepsCounts(t *testing.T) {
	cmds := []string{"add 4", "add 2", "add 6", "add 1", "add 3", "add 5", "add 7", "del 4", "del 5", "del 6"}
	steps, pic := replayView(t, "avl", bookRehash, cmds, -1)
	if got := attrs(nodeAttr, pic); len(got) != 4 {
		t.Errorf("nodes after three deletes: %v", got)
	}
	// 4(2(1,3),6(5,7)) loses 4, 5 and 6, each replaced by its successor:
	// avl.Del(6) first unlinks 7, its successor, and 6(2(1,3),-) leans left
	// by two: 6 turns right under 2, then 7 takes its place.
	if ran := strings.Join(steps[9].Ran, "\n"); !strings.Contains(ran, "avl.Fix: rotRight(6)") {
		t.Errorf("del 6 ran:\n%s", ran)
	}
	if !strings.Contains(pic, ">root 2: height 3, 4 nodes<") {
		t.Errorf("after three deletes:\n%s", pic)
	}
	if steps[7].Reply != "(int) 1" {
		t.Errorf("del 4 replied %q", steps[7].Reply)
	}
}

func TestHashtableBothTablesDuringResize(t *testing.T) {
	cmds := numbered("set k%d v", 1, 41)
	// The first resize starts when the 32nd key lands in 4 buckets, and
	// that Insert moves one key. Each later set moves two (Lookup and
	// Insert each help): 8 sets later 17 of the 32 have moved.
	_, pic := replayView(t, "hashtable", 1, cmds, -1)
	if diff := cmp.Diff([]string{"older", "newer"}, attrs(tableAttr, pic)); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	if !strings.Contains(pic, "older (ht2): 4 buckets, 15 keys") || !strings.Contains(pic, "newer (ht1): 8 buckets, 25 keys") {
		t.Errorf("unexpected table sizes:\n%s", pic)
	}
	// With the book's 128 per operation the same resize ends at once.
	steps, pic := replayView(t, "hashtable", bookRehash, cmds, -1)
	if diff := cmp.Diff([]string{"newer"}, attrs(tableAttr, pic)); diff != "" {
		t.Errorf("tables with rehash=128 (-want +got):\n%s", diff)
	}
	ran := strings.Join(steps[31].Ran, "\n")
	for _, want := range []string{"startResizing: the 4-bucket table becomes the older one, a new one has 8 buckets", "moved 32 keys", "freed"} {
		if !strings.Contains(ran, want) {
			t.Errorf("step 32 ran:\n%s\nwant %q", ran, want)
		}
	}
}

func TestHashtableMovesAtMostRehashPerOperation(t *testing.T) {
	cmds := append(numbered("set k%d v", 1, 41), "get k1", "del k2", "keys")
	for _, rehash := range []int{1, 3} {
		steps, _ := replayView(t, "hashtable", rehash, cmds, -1)
		total := 0
		for i, s := range steps {
			var n int
			for _, r := range s.Ran {
				if _, err := fmt.Sscanf(r, "helpResizing: moved %d", &n); err == nil {
					total += n
					// set and get call helpResizing twice (Lookup, Insert)
					// or once; keys never does.
					limit := 2 * rehash
					if strings.HasPrefix(s.Cmd, "keys") {
						limit = 0
					}
					if n > limit {
						t.Errorf("rehash=%d step %d (%s): moved %d", rehash, i+1, s.Cmd, n)
					}
				}
			}
		}
		if total == 0 {
			t.Errorf("rehash=%d: nothing moved", rehash)
		}
	}
}

// TestRehashSettersOncePerPackage checks that setRehash reaches every
// hashtable package the views use, the key space's (which two views share)
// included, and each package once.
func TestRehashSettersOncePerPackage(t *testing.T) {
	seen := map[string]bool{}
	for _, set := range rehashSetters {
		name := runtime.FuncForPC(reflect.ValueOf(set).Pointer()).Name()
		if seen[name] {
			t.Errorf("rehashSetters lists %s twice", name)
		}
		seen[name] = true
	}
	// One key per operation leaves the key space's resize half done, where
	// the book's 128 finish it at once.
	cmds := numbered("set k%d v", 1, 41)
	for rehash, want := range map[int][]string{1: {"older", "newer"}, bookRehash: {"newer"}} {
		_, pic := replayView(t, "keyspace", rehash, cmds, -1)
		if diff := cmp.Diff(want, attrs(tableAttr, pic)); diff != "" {
			t.Errorf("keyspace tables with rehash=%d (-want +got):\n%s", rehash, diff)
		}
	}
}

func TestHeapSlotsAndBackReferences(t *testing.T) {
	cmds := append(numbered("set k%d v", 1, 8), "pexpire k1 7000", "pexpire k2 6000", "pexpire k3 5000", "pexpire k4 4000", "pexpire k5 3000", "pexpire k6 2000", "pexpire k7 1000")
	_, pic := replayView(t, "heap", bookRehash, cmds, -1)
	if diff := cmp.Diff([]string{"0", "1", "2", "3", "4", "5", "6"}, attrs(slotAttr, pic)); diff != "" {
		t.Errorf("slots (-want +got):\n%s", diff)
	}
	if !strings.Contains(pic, "[0] k7") {
		t.Errorf("the nearest expiry, k7, should be in slot 0:\n%s", pic)
	}
	// Every slot shows its owner's heapIdx, which must be the slot itself.
	for i := 0; i < 7; i++ {
		if !regexp.MustCompile(fmt.Sprintf(`\[%d\] k\d</text><text[^>]*>at \d+ idx=%d<`, i, i)).MatchString(pic) {
			t.Errorf("slot %d: owner's heapIdx does not match", i)
		}
	}
	// The tree holds the same seven items.
	if got := len(attrs(nodeAttr, pic)); got != 7 {
		t.Errorf("%d tree nodes, want 7", got)
	}
	// Expiry removes due keys in order of time.
	steps, pic := replayView(t, "heap", bookRehash, append(cmds, "wait 2500", "pttl k5", "pttl k6"), -1)
	if got := steps[len(cmds)].Ran; !strings.Contains(strings.Join(got, "\n"), "k7 expires") || !strings.Contains(strings.Join(got, "\n"), "k6 expires") {
		t.Errorf("wait 2500 ran %v", got)
	}
	if steps[len(cmds)+1].Reply != "(int) 500" || steps[len(cmds)+2].Reply != "(int) -2" {
		t.Errorf("pttl k5, k6: %q %q", steps[len(cmds)+1].Reply, steps[len(cmds)+2].Reply)
	}
	if got := len(attrs(slotAttr, pic)); got != 5 {
		t.Errorf("%d slots after two expiries, want 5", got)
	}
}

func TestTimersKeepActivityOrder(t *testing.T) {
	cmds := []string{"connect", "wait 2000", "connect", "wait 2000", "connect", "request 4", "wait 1500", "wait 2000"}
	for _, tc := range []struct {
		upto int
		want []string
	}{
		{5, []string{"4", "5", "6"}},
		{6, []string{"5", "6", "4"}}, // request 4 moves it to the back
		{7, []string{"5", "6", "4"}}, // at 5500 ms nothing is due yet
		{8, []string{"6", "4"}},      // at 7500 ms fd 5 (active at 2000) is
	} {
		_, pic := replayView(t, "timers", bookRehash, cmds, tc.upto)
		if diff := cmp.Diff(tc.want, attrs(regexp.MustCompile(`data-conn="(\d+)"`), pic)); diff != "" {
			t.Errorf("after %d steps (-want +got):\n%s", tc.upto, diff)
		}
	}
}

func TestKeyspaceCommands(t *testing.T) {
	cmds := []string{"set a 1", "zadd z 1 x", "zadd z 2 y", "get z", "zscore z y", "pexpire a 100", "wait 100", "get a", "zquery z 0 \"\" 0 10", "del z", "keys"}
	steps, _ := replayView(t, "keyspace", bookRehash, cmds, -1)
	var got []string
	for _, s := range steps {
		got = append(got, s.Reply)
	}
	want := []string{"(nil)", "(int) 1", "(int) 1", "(err) expect string type", "(dbl) 2", "(int) 1", "ok", "(nil)", "(arr) len=4 x 1 y 2", "(int) 1", "(arr) len=0 "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	if ran := strings.Join(steps[9].Ran, "\n"); !strings.Contains(ran, "2 members <= kLargeContainerSize") {
		t.Errorf("del z ran:\n%s", ran)
	}
}

func TestUnknownCommandsChangeNothing(t *testing.T) {
	for _, v := range views {
		for _, bad := range []string{"nosuch", "set", "zadd z x m", "wait -1", strings.Repeat("x", maxCmdLen+1)} {
			_, before := replayView(t, v.name, bookRehash, nil, 0)
			steps, after := replayView(t, v.name, bookRehash, []string{bad}, 1)
			if !strings.HasPrefix(steps[0].Reply, "(err)") {
				t.Errorf("%s: %q replied %q", v.name, bad, steps[0].Reply)
			}
			if before != after {
				t.Errorf("%s: %q changed the picture", v.name, bad)
			}
		}
	}
}

func TestParseState(t *testing.T) {
	st := parseState("view=zset&cmds=zadd%20z%201%20a;zadd+z+2+b%0Azscore%20z%20a&step=2&rehash=3")
	if st.view.name != "zset" || st.step != 2 || st.rehash != 3 {
		t.Errorf("parsed %+v", st)
	}
	if diff := cmp.Diff([]string{"zadd z 1 a", "zadd z 2 b", "zscore z a"}, st.cmds); diff != "" {
		t.Errorf("cmds (-want +got):\n%s", diff)
	}
	if got, want := st.query(1), "?view=zset&cmds=zadd%20z%201%20a;zadd%20z%202%20b;zscore%20z%20a&rehash=3&step=1"; got != want {
		t.Errorf("query = %q, want %q", got, want)
	}
	// Out of range: the last step, the book's rehash, the first view.
	st = parseState("view=nope&cmds=set%20a%201&step=9&rehash=0")
	if st.view != views[0] || st.step != 1 || st.rehash != bookRehash {
		t.Errorf("parsed %+v", st)
	}
}

// TestEveryScenarioServes loads every view's scenarios at every step
// through the HTTP handler.
func TestEveryScenarioServes(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	for _, v := range views {
		for _, sc := range v.scenarios {
			st := state{view: v, cmds: sc.cmds, rehash: bookRehash}
			for k := 0; k <= len(sc.cmds); k++ {
				resp, err := http.Get(srv.URL + "/" + st.query(k))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s %q step %d: %s", v.name, sc.name, k, resp.Status)
				}
			}
		}
	}
}

func TestZSetUpdateAndRemove(t *testing.T) {
	cmds := append(numbered("zadd z %[1]d m%[1]d", 1, 8), "zadd z 10 m1", "zrem z m4", "zrem z m4", "zscore z m1", "zquery z 2 \"\" 1 4")
	steps, pic := replayView(t, "zset", bookRehash, cmds, -1)
	var replies []string
	for _, s := range steps[7:] {
		replies = append(replies, s.Reply)
	}
	want := []string{"(int) 0", "(int) 1", "(int) 0", "(dbl) 10", "(arr) len=4 m3 3 m5 5"}
	if diff := cmp.Diff(want, replies); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	if ran := strings.Join(steps[7].Ran, "\n"); !strings.Contains(ran, "zset.(*ZSet).update") {
		t.Errorf("zadd of a member ran:\n%s", ran)
	}
	if got := len(attrs(nodeAttr, pic)); got != 6 {
		t.Errorf("%d nodes after a zrem, want 6", got)
	}
}

// TestRandomCommands runs random command streams through every view: no
// panic, and every tree node drawn once.
func TestRandomCommands(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := map[string][]string{
		"hashtable": {"set k%d v", "get k%d", "del k%d", "keys"},
		"avl":       {"add %d", "del %d"},
		"zset":      {"zadd z %d m%d", "zrem z m%d", "zscore z m%d", "zquery z %d \"\" 1 3"},
		"timers":    {"connect", "request %d", "close %d", "wait %d00"},
		"heap":      {"set k%d v", "del k%d", "pexpire k%d %d00", "wait %d0", "pttl k%d"},
		"keyspace":  {"set k%d v", "del k%d", "zadd k%d 1 x", "pexpire k%d %d00", "wait %d0", "zrem k%d x", "keys"},
		"list":      {"lpush e%d x*%d00", "rpush e%d", "lpop %d", "rpop", "lindex %d", "lset %d v", "linsert after e%d x*%d00", "lrem -%d e1", "ltrim %d -%d"},
		"blocking":  {"c%d blpop k%d k%d %d", "c%d brpop k%d", "c%d blmove k%d k%d left right %d", "rpush k%d v%d", "lpush k%d a b", "tick %d", "unblock c%d", "close c%d"},
	}
	for _, v := range views {
		var cmds []string
		for range 300 {
			f := words[v.name][rng.IntN(len(words[v.name]))]
			n := strings.Count(f, "%d")
			args := make([]any, n)
			for i := range args {
				args[i] = rng.IntN(40)
			}
			cmds = append(cmds, fmt.Sprintf(f, args...))
		}
		for _, rehash := range []int{1, bookRehash} {
			for _, upto := range []int{100, 200, 300} {
				_, pic := replayView(t, v.name, rehash, cmds, upto)
				ids := attrs(nodeAttr, pic)
				seen := map[string]bool{}
				for _, id := range ids {
					if seen[id] {
						t.Errorf("%s: node %q drawn twice", v.name, id)
					}
					seen[id] = true
				}
			}
		}
	}
}

func TestBigTreesAreCut(t *testing.T) {
	_, pic := replayView(t, "avl", bookRehash, numbered("add %d", 0, 400), -1)
	if got := len(attrs(nodeAttr, pic)); got != 1<<maxTreeDepth-1 {
		t.Errorf("%d nodes drawn of a 400-node tree, want the top %d levels", got, maxTreeDepth)
	}
}

// TestListNodes: chapter 37's quicklist through the list view: elements
// in order, a node per 8 KiB, an insert into a full node splitting it
// (the new element in a node of its own between the halves),
// and the replies.
func TestListNodes(t *testing.T) {
	elems := func(pic string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`class="sub">([^<]*)</text>`).FindAllStringSubmatch(pic, -1) {
			if !strings.Contains(m[1], " el, ") {
				out = append(out, m[1])
			}
		}
		return out
	}
	cmds := []string{"rpush a b c", "lpush x y", "rpush d", "lpop", "rpop 2", "lindex -1", "lpop 9", "lpop", "lpop 1"}
	steps, pic := replayView(t, "list", bookRehash, cmds, 5)
	if diff := cmp.Diff([]string{"x", "a", "b"}, elems(pic)); diff != "" {
		t.Errorf("elements after %v (-want +got):\n%s", cmds[:5], diff)
	}
	var replies []string
	for _, s := range steps {
		replies = append(replies, s.Reply)
	}
	want := []string{"(int) 3", "(int) 5", "(int) 6", "(str) y", "(arr) len=2 d c", "(str) b", "(arr) len=3 x a b", "(nil)", "(nil)"}
	if diff := cmp.Diff(want, replies); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}

	// Three elements of 3,000 bytes do not fit one node of 8 KiB.
	_, pic = replayView(t, "list", bookRehash, []string{"rpush a*3000 b*3000 c*3000"}, -1)
	if got := len(attrs(nodeAttr, pic)); got != 2 || !strings.Contains(pic, "3 elements, 2 nodes") {
		t.Errorf("3 elements of 3,000 bytes: %d nodes drawn:\n%s", got, pic)
	}
	// A node filled to its last byte splits at an insert.
	cmds = []string{"rpush a*2045 b*2045 c*2045 d*2034", "linsert before c*2045 n"}
	_, pic = replayView(t, "list", bookRehash, cmds, 1)
	if !strings.Contains(pic, "4 el, 8192 B") {
		t.Errorf("the node is not full:\n%s", pic)
	}
	_, pic = replayView(t, "list", bookRehash, cmds, -1)
	if got := len(attrs(nodeAttr, pic)); got != 3 {
		t.Errorf("after the insert: %d nodes, want 3 (the halves, the new element between them):\n%s", got, pic)
	}
	if diff := cmp.Diff([]string{"a*2045", "b*2045", "n", "c*2045", "d*2034"}, elems(pic)); diff != "" {
		t.Errorf("elements after the split (-want +got):\n%s", diff)
	}
	// lrem, ltrim and lset.
	cmds = []string{"rpush a b a c a", "lrem -2 a", "lset -1 z", "lset 9 z", "ltrim 1 5", "ltrim 5 1", "lpop"}
	steps, pic = replayView(t, "list", bookRehash, cmds, 5)
	if diff := cmp.Diff([]string{"b", "z"}, elems(pic)); diff != "" {
		t.Errorf("elements (-want +got):\n%s", diff)
	}
	replies = nil
	for _, s := range steps {
		replies = append(replies, s.Reply)
	}
	want = []string{"(int) 5", "(int) 2", "(str) OK", "(err) ERR index out of range", "(str) OK", "(str) OK", "(nil)"}
	if diff := cmp.Diff(want, replies); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

var (
	waiterAttr = regexp.MustCompile(`data-waiter="([^"]*)"`)
	readyAttr  = regexp.MustCompile(`data-ready="([^"]*)"`)
	clientAttr = regexp.MustCompile(`data-client="([^"]*)" data-state="([^"]*)"`)
)

// clientStates returns each client drawn as "name: state".
func clientStates(pic string) []string {
	var out []string
	for _, m := range clientAttr.FindAllStringSubmatch(pic, -1) {
		out = append(out, m[1]+": "+m[2])
	}
	return out
}

// replies returns the steps' replies.
func replies(steps []step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Reply)
	}
	return out
}

// TestBlockingScenarios: chapter 38's waitq through the blocking view:
// each queue in the order its clients parked, a client served once and
// out of all its queues, the ready keys served in the order they became
// ready (a move's destination after its source), a waiter left parked
// when those before it took everything, and timeouts.
func TestBlockingScenarios(t *testing.T) {
	for _, tc := range []struct {
		cmds    []string
		upto    int
		waiters []string // data-waiter, key/client, keys by name
		ready   []string
		clients []string
		text    []string // in the picture
	}{
		{[]string{"c1 blpop k1", "c2 blpop k1"}, -1, []string{"k1/c1", "k1/c2"}, nil,
			[]string{"c1: parked", "c2: parked"}, []string{"2 clients parked, 1 key waited on", "parked on k1 (blpop), no timeout"}},
		{[]string{"c1 blpop k1", "c2 blpop k1", "rpush k1 a b c"}, -1, nil, []string{"k1"},
			[]string{"c1: answered", "c2: answered"}, []string{"woken on k1: (arr) len=2 k1 a", "woken on k1: (arr) len=2 k1 b", ">k1: served c1 c2<", ">2 served<", `data-list="k1"`, ">1 element<"}},
		// One client on two keys: in both queues, served by the first created.
		{[]string{"c1 blpop k1 k2", "c2 blpop k2"}, -1, []string{"k1/c1", "k2/c1", "k2/c2"}, nil, nil, nil},
		{[]string{"c1 blpop k1 k2", "c2 blpop k2", "rpush k2 x"}, -1, []string{"k2/c2"}, []string{"k2"},
			[]string{"c1: answered", "c2: parked"}, []string{"woken on k2: (arr) len=2 k2 x", ">k2: served c1, then empty: c2 stays parked<"}},
		{[]string{"c1 blpop k1 k2", "c2 blpop k2", "rpush k2 x", "rpush k1 y"}, -1, []string{"k2/c2"}, nil,
			[]string{"c1: answered", "c2: parked"}, []string{"none: the last command created no key a client waits on", `data-list="k1"`}},
		// The lost wake-up: c2 stays parked, and is served by the next push.
		{[]string{"c1 blpop k1", "c2 blpop k1", "rpush k1 a"}, -1, []string{"k1/c2"}, []string{"k1"},
			[]string{"c1: answered", "c2: parked"}, []string{"none: every key is empty"}},
		{[]string{"c1 blpop k1", "c2 blpop k1", "rpush k1 a", "rpush k1 b"}, -1, nil, []string{"k1"},
			[]string{"c1: answered", "c2: answered"}, []string{"woken on k1: (arr) len=2 k1 b"}},
		// A chain of moves: each destination is ready in turn.
		{[]string{"c1 blmove a b", "c2 blmove b c", "c3 blpop c", "rpush a x"}, -1, nil, []string{"a", "b", "c"},
			[]string{"c1: answered", "c2: answered", "c3: answered"}, []string{"woken on a: (str) x", "woken on c: (arr) len=2 c x", "ready when the command ended: a;"}},
		// A timeout: due at 2 s, answered at 2 s, and c2 moves up.
		{[]string{"c1 blpop k1 2", "c2 blpop k1", "tick 1"}, -1, []string{"k1/c1", "k1/c2"}, nil,
			[]string{"c1: parked", "c2: parked"}, []string{"now 1 s;", "times out at 2 s", ">due 2 s<"}},
		{[]string{"c1 blpop k1 2", "c2 blpop k1", "tick 1", "tick 1"}, -1, []string{"k1/c2"}, nil,
			[]string{"c1: timed out", "c2: parked"}, []string{"timed out at 2 s: (nil)", `class="due"`}},
		{[]string{"c1 blpop k1 2", "c2 blpop k1", "tick 1", "tick 1", "rpush k1 a"}, -1, nil, []string{"k1"},
			[]string{"c1: timed out", "c2: answered"}, []string{"woken on k1: (arr) len=2 k1 a"}},
	} {
		_, pic := replayView(t, "blocking", bookRehash, tc.cmds, tc.upto)
		if diff := cmp.Diff(tc.waiters, attrs(waiterAttr, pic)); diff != "" {
			t.Errorf("%v: waiters (-want +got):\n%s", tc.cmds, diff)
		}
		if diff := cmp.Diff(tc.ready, attrs(readyAttr, pic)); diff != "" {
			t.Errorf("%v: ready keys (-want +got):\n%s", tc.cmds, diff)
		}
		if tc.clients != nil {
			if diff := cmp.Diff(tc.clients, clientStates(pic)); diff != "" {
				t.Errorf("%v: clients (-want +got):\n%s", tc.cmds, diff)
			}
		}
		for _, want := range tc.text {
			if !strings.Contains(pic, want) {
				t.Errorf("%v: the picture has no %q:\n%s", tc.cmds, want, pic)
			}
		}
	}
}

// TestBlockingReplies: what each command answers, and what the server's
// functions did, in order.
func TestBlockingReplies(t *testing.T) {
	cmds := []string{
		"lpush k a b c", // c b a
		"c1 blpop k",    // at once: c
		"c1 brpop k",    // at once: a
		"c2 blmove k d left right",
		"c3 blpop e 5",
		"c3 blpop e",   // parked: no second command
		"unblock c3",   // answered as its timeout would
		"unblock c3",   // no longer parked
		"c4 blpop f g", // parked on both
		"close c4",     // out of both queues
		"c5 blpop k k", // parked on k once
		"unblock c5 error",
		"c6 blmove r r", // a move within one list keeps it
		"c7 blpop r",
		"rpush r x",
		"tick 1",
	}
	steps, pic := replayView(t, "blocking", bookRehash, cmds, -1)
	want := []string{
		"(int) 3", "(arr) len=2 k c", "(arr) len=2 k a", "(str) b", "(no reply yet: c3 is parked)",
		"(err) c3 is parked: the server reads its next request once it is answered",
		"(int) 1", "(int) 0", "(no reply yet: c4 is parked)", "closed", "(no reply yet: c5 is parked)", "(int) 1",
		"(no reply yet: c6 is parked)", "(no reply yet: c7 is parked)", "(int) 1", "ok",
	}
	if diff := cmp.Diff(want, replies(steps)); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	for i, want := range map[int]string{
		3:  "server.listBMove: LMOVE k d LEFT RIGHT",
		4:  "heap.Upsert: c3 times out at 5 s",
		6:  "heap.Delete: c3's timer",
		9:  "waitq.(*Queues).Unpark(c4): out of 2 queues (f g)",
		10: "waitq.(*Queues).Park(c5): 2 keys looked at; c5 is k's #1",
		// c6 takes x and puts it back: r still holds it for c7.
		14: "waitq.(*Queues).Head(r) = c7: server.blockServe",
	} {
		if ran := strings.Join(steps[i].Ran, "\n"); !strings.Contains(ran, want) {
			t.Errorf("%s ran:\n%s\nwant %q", cmds[i], ran, want)
		}
	}
	if diff := cmp.Diff([]string{"c1: answered", "c2: answered", "c3: answered", "c4: closed", "c5: answered", "c6: answered", "c7: answered"}, clientStates(pic)); diff != "" {
		t.Errorf("clients (-want +got):\n%s", diff)
	}
	for _, want := range []string{"unblocked: (nil)", "unblocked: (err) UNBLOCKED client unblocked via CLIENT UNBLOCK", "woken on r: (str) x", "woken on r: (arr) len=2 r x", ">d</text>", "now 1 s;"} {
		if !strings.Contains(pic, want) {
			t.Errorf("the picture has no %q:\n%s", want, pic)
		}
	}
}

// TestBlockingBounds: the view refuses what would make a replay's work
// or memory grow without bound, and bad timeouts, changing nothing.
func TestBlockingBounds(t *testing.T) {
	// 90 elements a push, as many as a command's 200 bytes hold.
	full := []string{"rpush k" + strings.Repeat(" v", 90), "rpush k" + strings.Repeat(" v", 90), "rpush k" + strings.Repeat(" v", maxBlockElems-180)}
	for _, tc := range []struct {
		setup []string
		cmd   string
		want  string
	}{
		{nil, "c1 blpop " + strings.Join(numbered("k%d", 0, maxBlockKeys+1), " "), "(err) the explorer takes up to 8 keys a command"},
		{nil, "c1 blpop " + strings.Repeat("k", maxBlockName+1), "(err) a key is named"},
		{nil, strings.Repeat("c", maxBlockName+1) + " blpop k", "(err) a client is named"},
		{nil, "rpush k " + strings.Repeat("v", maxBlockName+1), "(err) an element is"},
		{full, "rpush j v", "(err) the explorer holds up to 256 elements in all"},
		{numbered("c%d blpop k", 0, maxClients), "c99 blpop k", "(err) the explorer takes up to 16 clients"},
		{nil, "c1 blpop k -1", "(err) ERR timeout is negative"},
		{nil, "c1 blpop k 1e7", "(err) the explorer takes up to 1000000 seconds"},
		{nil, "c1 blpop k 1e999", "(err) the explorer takes up to 1000000 seconds"},
		{nil, "c1 blpop k -inf", "(err) ERR timeout is negative"},
		{nil, "c1 blpop k NaN", "(err) ERR timeout is not a float or out of range"},
		{nil, "tick 1e7", "(err) tick takes a number of seconds, up to 1000000"},
		{nil, "tick x", "(err) tick takes a number of seconds, up to 1000000"},
		{nil, "tick -1", "(err) tick takes a number of seconds, up to 1000000"},
		{nil, "c1 blmove a b up down", "(err) ERR syntax error"},
		{nil, "c1 blmove a", "(err) ERR wrong number of arguments for 'blmove' command"},
		{nil, "c1 blpop 5", "(err) ERR wrong number of arguments for 'blpop' command"},
		{nil, "unblock c1 nicely", "(err) ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"},
		{nil, "close c1", "(err) no such client"},
		{nil, "rpush blpop", "(err) Unknown cmd"},
	} {
		_, before := replayView(t, "blocking", bookRehash, tc.setup, -1)
		steps, after := replayView(t, "blocking", bookRehash, append(slices.Clone(tc.setup), tc.cmd), -1)
		if got := steps[len(steps)-1].Reply; !strings.HasPrefix(got, tc.want) {
			t.Errorf("%.60s: %q, want %q", tc.cmd, got, tc.want)
		}
		// The picture may differ only in what it highlights.
		unlit := regexp.MustCompile(` class="(new|hit|due)"`)
		if unlit.ReplaceAllString(before, "") != unlit.ReplaceAllString(after, "") {
			t.Errorf("%.60s changed the picture", tc.cmd)
		}
	}
	// The most a URL can ask for: every command as long as it may be.
	var cmds []string
	for i := range maxCmds {
		switch i % 4 {
		case 0:
			cmds = append(cmds, "rpush k"+fmt.Sprint(i%7)+strings.Repeat(" v", 90))
		case 1:
			cmds = append(cmds, fmt.Sprintf("c%d blpop k1 k2 k3 k4 k5 k6 k7 k8 1", i%40))
		case 2:
			cmds = append(cmds, fmt.Sprintf("c%d blmove k%d k%d right left", i%40, i%7, (i+1)%7))
		default:
			cmds = append(cmds, "tick 1")
		}
	}
	_, pic := replayView(t, "blocking", bookRehash, cmds, -1)
	if len(pic) > 64<<10 {
		t.Errorf("the picture of %d commands is %d bytes", len(cmds), len(pic))
	}
}
