package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"runtime"
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
