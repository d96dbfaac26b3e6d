package server

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// zalgModel is the set algebra on Go maps, written from Redis's rules
// rather than from the server's code: a union from the smallest input to
// the largest (inputs of one size in the order given), each weighted
// score 0 for a NaN and a sum 0 for one; an intersection from its
// smallest input, whose weighted score alone is 0 for a NaN; a difference
// keeping the first input's scores.
func zalgModel(op string, sets []map[string]float64, weights []float64, agg string) map[string]float64 {
	idx := make([]int, len(sets))
	for i := range idx {
		idx[i] = i
	}
	if op != "zdiff" {
		slices.SortStableFunc(idx, func(a, b int) int { return len(sets[a]) - len(sets[b]) })
	}
	combine := func(acc, v float64) float64 {
		switch agg {
		case "min":
			if v < acc {
				return v
			}
			return acc
		case "max":
			if v > acc {
				return v
			}
			return acc
		}
		if s := acc + v; !math.IsNaN(s) {
			return s
		}
		return 0
	}
	nanZero := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return v
	}
	out := map[string]float64{}
	switch op {
	case "zunion":
		for _, i := range idx {
			for m, s := range sets[i] {
				v := nanZero(s * weights[i])
				if have, ok := out[m]; ok {
					v = combine(have, v)
				}
				out[m] = v
			}
		}
	case "zinter":
	member:
		for m, s := range sets[idx[0]] {
			v := nanZero(s * weights[idx[0]])
			for _, j := range idx[1:] {
				o, ok := sets[j][m]
				if !ok {
					continue member
				}
				v = combine(v, o*weights[j])
			}
			out[m] = v
		}
	case "zdiff":
	first:
		for m, s := range sets[0] {
			for _, other := range sets[1:] {
				if _, ok := other[m]; ok {
					continue first
				}
			}
			out[m] = s
		}
	}
	return out
}

// fmtScore writes a score as an argument Redis reads back exactly.
func fmtScore(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// zalgReplyOf is the RESP2 reply of a result WITHSCORES: (score, member)
// order, -0 and 0 tied.
func zalgReplyOf(m map[string]float64) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if m[a] != m[b] {
			if m[a] < m[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	out := resp.AppendArray(nil, 2*len(names))
	for _, n := range names {
		out = resp.AppendBulk(out, n)
		out = resp.AppendDouble(out, m[n], resp.RESP2)
	}
	return string(out)
}

// TestZAlgebraModel: ZUNION, ZINTER and ZDIFF, with random sets (scores
// with infinities and zeros among them), weights and aggregates, answer
// what the model does; their STORE forms store it, ZINTERCARD counts it.
func TestZAlgebraModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	scores := []float64{0, 1, -1, 2.5, math.Inf(1), math.Inf(-1), 1e308, -3, 7}
	weightsOf := []float64{1, 0, -1, 2, 0.5, math.Inf(1), math.Inf(-1), 1e10}
	for round := range 300 {
		resetData(t)
		nsets := 1 + rng.IntN(4)
		sets := make([]map[string]float64, nsets)
		keys := make([]string, nsets)
		for i := range sets {
			keys[i] = "k" + strconv.Itoa(i)
			sets[i] = map[string]float64{}
			for range rng.IntN(12) {
				m := "m" + strconv.Itoa(rng.IntN(15))
				s := scores[rng.IntN(len(scores))]
				sets[i][m] = s
				respRun(t, "zadd", keys[i], fmtScore(s), m)
			}
		}
		if rng.IntN(4) == 0 && nsets > 1 { // one key given twice
			keys[nsets-1], sets[nsets-1] = keys[0], sets[0]
		}
		weights := make([]float64, nsets)
		wargs := []string{"weights"}
		for i := range weights {
			weights[i] = 1
			if rng.IntN(2) == 0 {
				weights[i] = weightsOf[rng.IntN(len(weightsOf))]
			}
			wargs = append(wargs, fmtScore(weights[i]))
		}
		agg := []string{"sum", "min", "max"}[rng.IntN(3)]
		for _, op := range []string{"zunion", "zinter", "zdiff"} {
			args := append([]string{op, strconv.Itoa(nsets)}, keys...)
			if op != "zdiff" {
				args = append(append(args, wargs...), "aggregate", agg)
			}
			want := zalgModel(op, sets, weights, agg)
			if got := respRun(t, append(args, "withscores")...); got != zalgReplyOf(want) {
				t.Fatalf("round %d: %q = %q, want %q", round, args, got, zalgReplyOf(want))
			}
			store := append([]string{op + "store", "dest"}, args[1:]...)
			if got, n := respRun(t, store...), fmt.Sprintf(":%d\r\n", len(want)); got != n {
				t.Fatalf("round %d: %q = %q, want %q", round, store, got, n)
			}
			stored := make(map[string]float64, len(want))
			for m, v := range want {
				stored[m] = v + 0 // a stored -0 is 0
			}
			if got := respRun(t, "zrange", "dest", "0", "-1", "withscores"); len(want) > 0 && got != zalgReplyOf(stored) {
				t.Fatalf("round %d: %q stored %q, want %q", round, store, got, zalgReplyOf(stored))
			}
			if op == "zinter" {
				card := append([]string{"zintercard"}, args[1:2+nsets]...)
				if got, n := respRun(t, card...), fmt.Sprintf(":%d\r\n", len(want)); got != n {
					t.Fatalf("round %d: %q = %q, want %q", round, card, got, n)
				}
			}
		}
	}
}

// TestZAlgebraWithinEstimate: inside EXEC, the pops, the set algebra,
// ZRANDMEMBER and ZSCAN, on sets of up to thousands of members, never do
// more work than EXEC weighed for them (their cost functions).
func TestZAlgebraWithinEstimate(t *testing.T) {
	resetTx(t)
	var cmds [][]string
	execDone = func(weighed, did []int) {
		for i := range weighed {
			if did[i] > weighed[i] && i < len(cmds) {
				t.Errorf("EXEC: %q did %d units of work, weighed at %d", cmds[i], did[i], weighed[i])
			}
		}
	}
	t.Cleanup(func() { execDone = nil })
	rng := rand.New(rand.NewPCG(7, 9))
	a := newTxClient(t)
	keys := []string{"z0", "z1", "z2", "s"}
	a.do("set", "s", "v")
	gen := func() []string {
		k := func() string { return keys[rng.IntN(len(keys))] }
		n := []int{1, 10, 300, 3000}[rng.IntN(4)]
		switch rng.IntN(9) {
		case 0, 1:
			cmd := []string{"zadd", keys[rng.IntN(3)]}
			for i := range n {
				cmd = append(cmd, strconv.Itoa(rng.IntN(50)), "m"+strconv.Itoa(rng.IntN(2*n+i+1)))
			}
			return cmd
		case 2:
			return []string{[]string{"zpopmin", "zpopmax"}[rng.IntN(2)], k(), strconv.Itoa(n)}
		case 3:
			return []string{"zmpop", "2", k(), k(), "max", "count", strconv.Itoa(n)}
		case 4:
			return []string{[]string{"zunion", "zinter", "zdiff"}[rng.IntN(3)], "3", k(), k(), k(), "withscores"}
		case 5:
			return []string{[]string{"zunionstore", "zinterstore", "zdiffstore"}[rng.IntN(3)], k(), "2", k(), k()}
		case 6:
			return []string{"zintercard", "2", k(), k(), "limit", strconv.Itoa(rng.IntN(n))}
		case 7:
			return []string{"zrandmember", k(), strconv.Itoa(n * (1 - 2*rng.IntN(2))), "withscores"}
		default:
			return []string{"zscan", k(), "0", "count", strconv.Itoa(n)}
		}
	}
	for range 60 {
		cmds = cmds[:0]
		a.expect(okReply, "multi")
		for range 1 + rng.IntN(6) {
			cmd := gen()
			cmds = append(cmds, cmd)
			a.do(cmd...)
		}
		a.do("exec")
	}
}

// TestZScanThroughChanges: a ZSCAN of a set that grows (its member table
// resizing several times) and loses members between calls returns every
// member present from the first call to the last exactly once, many of
// them tied on one score, with a small COUNT.
func TestZScanThroughChanges(t *testing.T) {
	resetData(t)
	rng := rand.New(rand.NewPCG(1, 2))
	kept := map[string]bool{}
	for i := range 2000 {
		m := "keep" + strconv.Itoa(i)
		kept[m] = true
		respRun(t, "zadd", "z", strconv.Itoa(rng.IntN(20)), m)
	}
	for i := range 500 {
		respRun(t, "zadd", "z", strconv.Itoa(rng.IntN(20)), "gone"+strconv.Itoa(i))
	}
	seen := map[string]int{}
	cursor, added, calls := "0", 0, 0
	for {
		reply := respRun(t, "zscan", "z", cursor, "count", "7")
		calls++
		parts := strings.Split(reply, "\r\n")
		cursor = parts[2]
		for i := 4; i+3 < len(parts); i += 4 {
			seen[parts[i+1]]++
		}
		if cursor == "0" {
			break
		}
		if calls > 100000 {
			t.Fatal("the scan does not end")
		}
		for range 10 { // grow, with scores before and after the cursor
			respRun(t, "zadd", "z", strconv.Itoa(rng.IntN(20)), "new"+strconv.Itoa(added))
			added++
		}
		respRun(t, "zrem", "z", "gone"+strconv.Itoa(rng.IntN(500)))
	}
	for m := range kept {
		if seen[m] != 1 {
			t.Errorf("%s returned %d times, want once", m, seen[m])
		}
	}
	t.Logf("%d calls, %d members added during the scan", calls, added)
}

// TestZScanCursorAnyValue: a cursor the client made up, in any block, is
// a place to start like another, found in O(log n), and the scan from it
// ends.
func TestZScanCursorAnyValue(t *testing.T) {
	resetData(t)
	for i := range 100 { // members past kZSetSmallMember: a set ZSCAN pages
		respRun(t, "zadd", "z", "5", strings.Repeat("m", kZSetSmallMember)+strconv.Itoa(i))
	}
	for _, c := range []string{"1", "16777215", "18446744073709551615", "9223372036854775808", "13839561654909534208"} {
		before := workDone
		reply := respRun(t, "zscan", "z", c, "count", "1")
		if workDone-before > 10*kMemberWork {
			t.Errorf("ZSCAN z %s did %d units of work", c, workDone-before)
		}
		if !strings.HasPrefix(reply, "*2\r\n$") {
			t.Errorf("ZSCAN z %s = %q", c, reply)
		}
	}
}

// TestZScanSmallWhole: a sorted set Redis keeps in its compact encoding
// (at most 128 members, none longer than 64 bytes) is answered whole,
// with cursor 0, whatever the cursor and COUNT, MATCH still filtering;
// one past either limit is paged.
func TestZScanSmallWhole(t *testing.T) {
	resetData(t)
	respRun(t, "zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d")
	all := "*2\r\n$1\r\n0\r\n*8\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nd\r\n$1\r\n4\r\n"
	for _, c := range []string{"0", "7", "18446744073709551615"} {
		if got := respRun(t, "zscan", "z", c, "count", "1"); got != all {
			t.Errorf("ZSCAN z %s COUNT 1 = %q, want the whole set", c, got)
		}
	}
	if got, want := respRun(t, "zscan", "z", "0", "match", "[bd]", "count", "1"), "*2\r\n$1\r\n0\r\n*4\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nd\r\n$1\r\n4\r\n"; got != want {
		t.Errorf("ZSCAN z 0 MATCH [bd] COUNT 1 = %q, want %q", got, want)
	}
	paged := func(key string) bool {
		return !strings.HasPrefix(respRun(t, "zscan", key, "0", "count", "1"), "*2\r\n$1\r\n0\r\n")
	}
	for i := range kZSetSmall {
		respRun(t, "zadd", "big", strconv.Itoa(i), strings.Repeat("m", kZSetSmallMember-3)+strconv.Itoa(100+i))
	}
	if paged("big") {
		t.Errorf("ZSCAN of %d members of %d bytes paged", kZSetSmall, kZSetSmallMember)
	}
	respRun(t, "zadd", "big", "0", "one more")
	if !paged("big") {
		t.Errorf("ZSCAN of %d members answered whole", kZSetSmall+1)
	}
	respRun(t, "zadd", "long", "1", "a", "2", strings.Repeat("x", kZSetSmallMember+1), "3", "c")
	if !paged("long") {
		t.Errorf("ZSCAN of a set with a member of %d bytes answered whole", kZSetSmallMember+1)
	}
}

// TestZPopRefusedChangesNothing: a pop whose reply the budget cannot hold
// is refused before it takes any member.
func TestZPopRefusedChangesNothing(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	long := strings.Repeat("x", 1000)
	for i := range 200 {
		a.do("zadd", "z", strconv.Itoa(i), long+strconv.Itoa(i))
	}
	maxOutputTotal = outputHeld + inputHeld + 50_000
	if got := a.do("zpopmin", "z", "200"); !strings.HasPrefix(got, "-ERR response is too big") {
		t.Fatalf("ZPOPMIN z 200 = %.60q, want the reply refused", got)
	}
	if got := a.do("zcard", "z"); got != ":200\r\n" {
		t.Fatalf("after the refused pop, ZCARD = %q, want 200", got)
	}
}

// FuzzZAlgebraArgs: the set algebra's parser takes any arguments without
// a panic, and what it accepts is consistent: as many keys as numkeys
// says, a weight for each, a limit not negative.
func FuzzZAlgebraArgs(f *testing.F) {
	for _, seed := range []string{
		"zunion 2 a b weights 1 2 aggregate max withscores",
		"zinterstore d 1 a weights inf",
		"zdiff 3 a b",
		"zintercard 1 a limit 5 limit 0",
		"zunion 9223372036854775807 a",
		"zinter -1 a aggregate",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		args := bytes.Fields(data)
		if len(args) < 2 {
			return
		}
		for _, form := range []struct {
			op          zalgOp
			store, card bool
		}{{zalgUnion, false, false}, {zalgInter, true, false}, {zalgDiff, false, false}, {zalgInter, false, true}} {
			if form.store && len(args) < 3 {
				continue
			}
			a, errText := zalgParse(args, form.op, form.store, form.card)
			if errText != "" {
				if !strings.HasPrefix(errText, "ERR ") {
					t.Fatalf("%q: error %q", args, errText)
				}
				continue
			}
			at := 1
			if form.store {
				at = 2
			}
			n, _ := strconv.Atoi(string(args[at]))
			if len(a.keys) != n || n < 1 {
				t.Fatalf("%q: %d keys, numkeys %d", args, len(a.keys), n)
			}
			if a.weights != nil && len(a.weights) != n || a.limit < 0 {
				t.Fatalf("%q: %d weights, limit %d", args, len(a.weights), a.limit)
			}
		}
	})
}
