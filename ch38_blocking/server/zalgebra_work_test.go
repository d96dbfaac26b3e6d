package server

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// zalgFill gives the sorted set at key n members, prefix0 to prefix(n-1),
// scores 0 to n-1, a few thousand to a ZADD.
func zalgFill(t *testing.T, key, prefix string, n int) {
	t.Helper()
	for from := 0; from < n; from += 4000 {
		cmd := []string{"zadd", key}
		for i := from; i < min(n, from+4000); i++ {
			cmd = append(cmd, strconv.Itoa(i), prefix+strconv.Itoa(i))
		}
		if got := respRun(t, cmd...); !strings.HasPrefix(got, ":") {
			t.Fatalf("ZADD %s: %q", key, got)
		}
	}
}

// zalgTimes is numkeys and key named k times, for a command's arguments.
func zalgTimes(k int, keys ...string) []string {
	out := []string{strconv.Itoa(k)}
	for i := range k {
		out = append(out, keys[i%len(keys)])
	}
	return out
}

// TestZAlgebraKeyNamedAgain: a key named many times costs about what it
// does named once: its members are looked up in it once, only its scores
// are combined again for each naming. ZINTERCARD of one set named 400
// times counts it without a walk; a union, an intersection and a
// difference of a set named 50 times do no more than a few lookups a
// member, where they did one for each naming.
func TestZAlgebraKeyNamedAgain(t *testing.T) {
	resetData(t)
	const n = 2000
	zalgFill(t, "z", "m", n)
	zalgFill(t, "y", "m", n/2)
	work := func(want string, limit int, args ...string) {
		t.Helper()
		before := workDone
		got := respRun(t, args...)
		did := workDone - before
		if want != "" && got != want || want == "" && !strings.HasPrefix(got, "*") {
			t.Fatalf("%.60q = %.80q, want %.80q", args, got, want)
		}
		if did > limit {
			t.Errorf("%s of %d keys did %d units of work, want at most %d", args[0], len(args), did, limit)
		}
	}
	card := append([]string{"zintercard"}, zalgTimes(400, "z")...)
	work(fmt.Sprintf(":%d\r\n", n), 1000, card...)
	work(":7\r\n", 1000, append(card, "limit", "7")...)
	// Two sets, each named 20 times: the smaller one walked, each of its
	// members looked up in the other once.
	work(fmt.Sprintf(":%d\r\n", n/2), n/2*(kVisitWork+2*kMemberWork), append([]string{"zintercard"}, zalgTimes(40, "z", "y")...)...)

	// A lookup a member, a few units more for the 49 namings after the
	// first, the sort and the reply: under three lookups a member.
	bound := 3 * n * kMemberWork
	many := zalgTimes(50, "z")
	work("", bound, append([]string{"zunion"}, many...)...)
	work("", bound, append(append([]string{"zinter"}, many...), "aggregate", "max", "withscores")...)
	work(fmt.Sprintf(":%d\r\n", n), bound, append([]string{"zunionstore", "dest"}, many...)...)
	work(fmt.Sprintf(":%d\r\n", n), bound, append([]string{"zinterstore", "dest"}, many...)...)
	// The first input named again: nothing is left, nothing to walk (nor
	// an old dest to tear down).
	respRun(t, "del", "dest")
	work(":0\r\n", 1000, append([]string{"zdiffstore", "dest"}, many...)...)
	if got := respRun(t, "exists", "dest"); got != ":0\r\n" {
		t.Errorf("ZDIFFSTORE of z less z left dest: %q", got)
	}
	// z less y named 49 times: each member of z looked up in y once.
	diff := append([]string{"zdiff", "50", "z"}, zalgTimes(49, "y")[1:]...)
	work("", n*(kVisitWork+3*kMemberWork), diff...)
}

// TestZAlgebraRepeatsModel: with keys named again anywhere among up to
// eight, in any order, the results are the model's (Redis's rules, each
// naming weighed and combined in its turn): scores with infinities,
// weights of 0 and infinities, so that products and sums that are not
// numbers count as 0.
func TestZAlgebraRepeatsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	scores := []float64{0, 1, -1, 0.1, 0.3, math.Inf(1), math.Inf(-1), 1e308, -1e308, 3}
	weightsOf := []float64{1, 0, -1, 2, 0.1, 0.3, math.Inf(1), math.Inf(-1), 1e308}
	for round := range 400 {
		resetData(t)
		names := []string{"a", "b", "c"}[:1+rng.IntN(3)]
		byName := map[string]map[string]float64{}
		for _, k := range names {
			byName[k] = map[string]float64{}
			for range rng.IntN(10) {
				m := "m" + strconv.Itoa(rng.IntN(12))
				s := scores[rng.IntN(len(scores))]
				byName[k][m] = s
				respRun(t, "zadd", k, fmtScore(s), m)
			}
		}
		nk := 1 + rng.IntN(8)
		keys := make([]string, nk)
		sets := make([]map[string]float64, nk)
		weights := make([]float64, nk)
		wargs := []string{"weights"}
		for i := range keys {
			keys[i] = names[rng.IntN(len(names))]
			sets[i] = byName[keys[i]]
			weights[i] = weightsOf[rng.IntN(len(weightsOf))]
			wargs = append(wargs, fmtScore(weights[i]))
		}
		agg := []string{"sum", "min", "max"}[rng.IntN(3)]
		for _, op := range []string{"zunion", "zinter", "zdiff"} {
			args := append([]string{op, strconv.Itoa(nk)}, keys...)
			w := weights
			if op != "zdiff" {
				args = append(append(args, wargs...), "aggregate", agg)
			}
			want := zalgModel(op, sets, w, agg)
			if got := respRun(t, append(args, "withscores")...); got != zalgReplyOf(want) {
				t.Fatalf("round %d: %q = %q, want %q", round, args, got, zalgReplyOf(want))
			}
			if op == "zinter" {
				card := append([]string{"zintercard"}, args[1:2+nk]...)
				if got, n := respRun(t, card...), fmt.Sprintf(":%d\r\n", len(want)); got != n {
					t.Fatalf("round %d: %q = %q, want %q", round, card, got, n)
				}
			}
		}
	}
}

// TestZAlgebraLoneRefused: a lone command of the set algebra whose work,
// weighed as EXEC weighs it (its row's cost), could pass what a
// transaction may do is refused before it runs with respWorkRefusal of
// that estimate: a few units of work, nothing held, its destination
// untouched. Within the bound the same sets are answered: an intersection
// or a difference walking a small set, a set named 400 times; and unions
// of 8k members and of two sets of 10k.
func TestZAlgebraLoneRefused(t *testing.T) {
	resetData(t)
	const n = 20000 // a lookup and more a member: 20k of them pass the bound
	zalgFill(t, "a", "m", n)
	zalgFill(t, "b", "m", n)
	zalgFill(t, "c", "x", n)
	zalgFill(t, "mid", "m", n*2/5)
	zalgFill(t, "small", "m", 10)
	zalgFill(t, "p", "p", n/2)
	zalgFill(t, "q", "q", n/2)
	respRun(t, "set", "dest", "kept")
	refused := func(args ...string) {
		t.Helper()
		cmd := make([][]byte, len(args))
		for i, a := range args {
			cmd[i] = []byte(a)
		}
		c, _ := respResolve(cmd)
		var plan execPlan
		e := plan.estimate(c, cmd)
		held, before := outputHeld+inputHeld, workDone
		got := respRun(t, args...)
		did := workDone - before
		if want := "-" + respWorkRefusal(e) + "\r\n"; got != want || e <= kMaxExecWork {
			t.Errorf("%q = %.100q, want %q (estimate %d)", args, got, want, e)
		}
		if did > 100 {
			t.Errorf("%q: refused after %d units of work", args, did)
		}
		if outputHeld+inputHeld != held {
			t.Errorf("%q: the budget holds %d bytes, %d before", args, outputHeld+inputHeld, held)
		}
		if got := respRun(t, "get", "dest"); got != "$4\r\nkept\r\n" {
			t.Errorf("%q: dest is %q after the refusal", args, got)
		}
	}
	refused("zunion", "2", "a", "b")
	refused("zunionstore", "dest", "2", "a", "b")
	refused("zinter", "2", "a", "b", "withscores")
	refused("zinterstore", "dest", "2", "a", "b", "weights", "1", "2")
	refused("zdiff", "2", "a", "b")
	refused("zdiffstore", "dest", "2", "a", "b")
	refused("zintercard", "3", "a", "b", "c")
	refused("zintercard", "3", "a", "b", "c", "limit", "1")
	// Errors first, as ever: a syntax error is not a refusal.
	if got := respRun(t, "zunion", "2", "a", "b", "bogus"); got != "-"+errSyntax+"\r\n" {
		t.Errorf("ZUNION with a bad option: %q", got)
	}

	answered := func(want string, args ...string) {
		t.Helper()
		before := workDone
		if got := respRun(t, args...); !strings.HasPrefix(got, want) {
			t.Errorf("%q = %.60q, want %q...", args, got, want)
		}
		if did := workDone - before; did > kMaxExecWork {
			t.Errorf("%q did %d units of work, more than %d", args, did, kMaxExecWork)
		}
	}
	answered(fmt.Sprintf(":%d\r\n", n*2/5), "zunionstore", "dest", "2", "mid", "small")
	answered(fmt.Sprintf(":%d\r\n", n), "zunionstore", "dest", "2", "p", "q")
	answered("*20\r\n", "zinter", "2", "a", "small", "withscores")
	answered(":10\r\n", "zintercard", "3", "a", "b", "small")
	answered(":0\r\n", "zdiffstore", "out", "2", "small", "a")
	answered(fmt.Sprintf(":%d\r\n", n), append([]string{"zintercard"}, zalgTimes(400, "a")...)...)
}
