package server

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/zset"
)

// zmember is a member as the model holds it.
type zmember struct {
	name  string
	score float64
}

// modelRange is the range r of the members sorted (in (score, name)
// order), computed plainly from Redis's definitions: filter, reverse for
// REV, then LIMIT's offset and count.
func modelRange(sorted []zmember, r *zrangeSpec) []zmember {
	var in []zmember
	switch r.by {
	case zByRank:
		n := int64(len(sorted))
		start, stop := r.start, r.stop
		if start < 0 {
			start = max(n+start, 0)
		}
		if stop < 0 {
			stop = n + stop
		}
		stop = min(stop, n-1)
		for i := start; i <= stop; i++ {
			j := i
			if r.rev {
				j = n - 1 - i
			}
			in = append(in, sorted[j])
		}
		return in
	case zByScore:
		for _, m := range sorted {
			if (m.score > r.min || !r.minEx && m.score == r.min) && (m.score < r.max || !r.maxEx && m.score == r.max) {
				in = append(in, m)
			}
		}
	case zByLex:
		for _, m := range sorted {
			if r.lmin.AtLeast(m.name) && r.lmax.AtMost(m.name) {
				in = append(in, m)
			}
		}
	}
	if r.rev {
		slices.Reverse(in)
	}
	if r.offset < 0 || r.offset >= int64(len(in)) {
		return nil
	}
	in = in[r.offset:]
	if r.limit >= 0 && r.limit < int64(len(in)) {
		in = in[:r.limit]
	}
	return in
}

// walked is what the walk of r over z visits.
func walked(z *zset.ZSet, r *zrangeSpec) []zmember {
	var got []zmember
	r.walk(z, func(node *zset.ZNode) bool {
		got = append(got, zmember{node.Name(), node.Score()})
		return true
	})
	return got
}

// zrangeArg is a random end of a range of kind by, drawn near the set's
// own scores and names so that bounds land on members.
func zrangeArg(rng *rand.Rand, by zrangeBy, sorted []zmember) string {
	pick := func() zmember {
		if len(sorted) == 0 {
			return zmember{"m", 1}
		}
		return sorted[rng.IntN(len(sorted))]
	}
	switch by {
	case zByRank:
		return fmt.Sprint(rng.IntN(2*len(sorted)+4) - len(sorted) - 2)
	case zByScore:
		s := []string{"-inf", "+inf", fmt.Sprint(pick().score), fmt.Sprint(rng.IntN(7) - 3)}[rng.IntN(4)]
		if rng.IntN(3) == 0 && s[0] != '-' && s[0] != '+' {
			s = "(" + s
		}
		return s
	}
	return []string{"-", "+", "[" + pick().name, "(" + pick().name, "[b", "(ab"}[rng.IntN(6)]
}

// TestZRangeWalkModel: the walk of every kind of range, REV and LIMIT,
// over random sets, visits what the model computes. Scores are few so
// that ties are many; the ranges of names run over sets of one score.
func TestZRangeWalkModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 20))
	for set := range 200 {
		z := &zset.ZSet{}
		byName := map[string]float64{}
		oneScore := set%3 == 0
		for range rng.IntN(60) {
			name := string(rune('a'+rng.IntN(4))) + string(rune('a'+rng.IntN(4)))
			score := float64(rng.IntN(5) - 2)
			if oneScore {
				score = 0
			}
			z.Add(name, score)
			byName[name] = score
		}
		var sorted []zmember
		for name, score := range byName {
			sorted = append(sorted, zmember{name, score})
		}
		slices.SortFunc(sorted, func(a, b zmember) int {
			if a.score != b.score {
				return int(math.Copysign(1, a.score-b.score))
			}
			return strings.Compare(a.name, b.name)
		})
		for range 100 {
			by := []zrangeBy{zByRank, zByScore, zByLex}[rng.IntN(3)]
			if by == zByLex && !oneScore {
				by = zByScore
			}
			args := []string{"z", zrangeArg(rng, by, sorted), zrangeArg(rng, by, sorted), [...]string{"", "BYRANK", "BYSCORE", "BYLEX"}[by]}
			if by == zByRank {
				args = args[:3]
			}
			if rng.IntN(2) == 0 {
				args = append(args, "REV")
			}
			if by != zByRank && rng.IntN(2) == 0 {
				args = append(args, "LIMIT", fmt.Sprint(rng.IntN(8)-1), fmt.Sprint(rng.IntN(8)-2))
			}
			bargs := make([][]byte, len(args))
			for i, a := range args {
				bargs[i] = []byte(a)
			}
			r, errText := parseZRange(bargs, zrangeForm{})
			if errText != "" {
				t.Fatalf("ZRANGE %q: %s", args, errText)
			}
			want, got := modelRange(sorted, &r), walked(z, &r)
			if !slices.Equal(want, got) {
				t.Fatalf("set %d, ZRANGE %q:\n got %v\nwant %v", set, args, got, want)
			}
			if by != zByRank && r.offset == 0 && r.limit < 0 {
				if n := r.count(z); n != int64(len(want)) {
					t.Fatalf("set %d, count of %q = %d, want %d", set, args, n, len(want))
				}
			}
		}
	}
}

// FuzzZRangeArgs: whatever the arguments of a range command, parsing
// them never panics, and a range that parses walks a set in its order,
// within its ends and LIMIT, doing no more work than EXEC would weigh.
func FuzzZRangeArgs(f *testing.F) {
	for _, seed := range []string{
		"z 0 -1", "z (1 +inf BYSCORE LIMIT 1 2 WITHSCORES", "z + - BYLEX REV", "z [a (c BYLEX LIMIT 0 -1",
		"z 5 (2 BYSCORE REV", "z -inf inf byscore limit -1 5", "z - +\x00x BYLEX", "z 0 -1 REV REV", "z 1 2 LIMIT 1",
	} {
		f.Add([]byte(seed))
	}
	z := &zset.ZSet{}
	for i, name := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		z.Add(name, float64(i/2)) // ties, and names in order
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		args := bytes.Split(data, []byte(" "))
		if len(args) < 3 {
			return
		}
		for _, form := range []zrangeForm{{}, {by: zByRank, rev: true}, {by: zByScore}, {by: zByScore, rev: true},
			{by: zByLex}, {by: zByLex, rev: true}} {
			r, errText := parseZRange(args, form)
			if errText != "" {
				continue
			}
			if form.by != zByAuto && r.by != form.by || form.rev && !r.rev {
				t.Fatalf("%q: parsed as %v, rev %v, in a form fixed to %v, rev %v", args, r.by, r.rev, form.by, form.rev)
			}
			before := workDone
			got := walked(z, &r)
			did := workDone - before
			if r.limit >= 0 && int64(len(got)) > r.limit {
				t.Fatalf("%q: %d members past LIMIT %d", args, len(got), r.limit)
			}
			for i := 1; i < len(got); i++ {
				a, b := got[i-1], got[i]
				if r.rev {
					a, b = b, a
				}
				if a.score > b.score || a.score == b.score && a.name >= b.name {
					t.Fatalf("%q: out of order: %v", args, got)
				}
			}
			if r.by != zByRank {
				for _, m := range got {
					if node := z.Lookup(m.name); !r.inMin(node) || !r.inMax(node) {
						t.Fatalf("%q: %v is outside the range", args, m)
					}
				}
			}
			// The key holds z, as far as EXEC's weighing can tell.
			p := &execPlan{items: map[string]int{string(args[0]): z.Len()}}
			weighed := zrangeCost(form, zcostReply)(p, append([][]byte{[]byte("zrange")}, args...))
			if did > weighed {
				t.Fatalf("%q: the walk did %d units of work, weighed at %d", args, did, weighed)
			}
		}
	})
}

// TestZRangeExecWithinEstimate: in transactions of the range commands,
// over sets of thousands of members, of one score (for the ranges of
// names) or of many, with long names and long bounds, no command does
// more work than EXEC weighed for it.
func TestZRangeExecWithinEstimate(t *testing.T) {
	resetTx(t)
	var runs int
	execDone = func(weighed, did []int) {
		runs++
		for i := range weighed {
			if did[i] > weighed[i] {
				t.Errorf("EXEC: command %d did %d units of work, weighed at %d", i+1, did[i], weighed[i])
			}
		}
	}
	t.Cleanup(func() { execDone = nil })
	rng := rand.New(rand.NewPCG(4, 4))
	a := newTxClient(t)
	long := strings.Repeat("p", 300) // a shared prefix the comparisons must read
	name := func() string { return long + fmt.Sprint(rng.IntN(5000)) }
	bound := func() string {
		return []string{"-", "+", "[" + name(), "(" + name(), "(" + long, "[" + long + "4"}[rng.IntN(6)]
	}
	score := func() string { return []string{"-inf", "+inf", "(10", "100", fmt.Sprint(rng.IntN(3000))}[rng.IntN(5)] }
	fill := func(key string, sameScore bool) {
		for range 10 {
			args := []string{"ZADD", key}
			for range 300 {
				s := "0"
				if !sameScore {
					s = fmt.Sprint(rng.IntN(3000))
				}
				args = append(args, s, name())
			}
			a.do(args...)
		}
	}
	gen := func() []string {
		switch rng.IntN(10) {
		case 0:
			return []string{"ZRANGE", "x", bound(), bound(), "BYLEX", "LIMIT", "0", fmt.Sprint(rng.IntN(3000) - 1)}
		case 1:
			return []string{"ZREVRANGEBYLEX", "x", bound(), bound()}
		case 2:
			return []string{"ZLEXCOUNT", "x", bound(), bound()}
		case 3:
			return []string{"ZRANGESTORE", "d", "z", score(), score(), "BYSCORE"}
		case 4:
			return []string{"ZRANGESTORE", "x", "x", bound(), bound(), "BYLEX", "REV"}
		case 5:
			return []string{"ZREMRANGEBYLEX", "x", bound(), bound()}
		case 6:
			return []string{"ZREMRANGEBYSCORE", "z", score(), score()}
		case 7:
			return []string{"ZREMRANGEBYRANK", "z", fmt.Sprint(rng.IntN(100)), fmt.Sprint(rng.IntN(300))}
		case 8:
			return []string{"ZCOUNT", "z", score(), score()}
		}
		return []string{"ZREVRANGEBYSCORE", "z", score(), score(), "WITHSCORES", "LIMIT", "1", "1000"}
	}
	for range 20 {
		fill("x", true)
		fill("z", false)
		a.do("MULTI")
		for range 1 + rng.IntN(8) {
			a.do(gen()...)
		}
		a.do("EXEC")
	}
	if runs < 15 {
		t.Errorf("only %d of 20 transactions ran", runs)
	}
}

// zrangeCommands are the range commands FuzzZRangeCommands sends.
var zrangeCommands = []string{"ZRANGE", "ZREVRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX",
	"ZREVRANGEBYLEX", "ZRANGESTORE", "ZCOUNT", "ZLEXCOUNT", "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE", "ZREMRANGEBYLEX"}

// FuzzZRangeCommands: a range command with any arguments, over sets by
// score and by name and a string, in either protocol, never panics,
// answers one well-formed reply, and leaves every set in order with its
// count right (a removal or a store that went wrong would not).
func FuzzZRangeCommands(f *testing.F) {
	f.Add(uint8(0), false, []byte("z (1 +inf BYSCORE REV LIMIT 1 2 WITHSCORES"))
	f.Add(uint8(6), true, []byte("z l [b + BYLEX LIMIT 0 -1"))
	f.Add(uint8(11), false, []byte("l (a [c"))
	f.Add(uint8(9), false, []byte("z -3 -1"))
	f.Add(uint8(7), true, []byte("s 0 1"))
	f.Fuzz(func(t *testing.T, which uint8, resp3 bool, data []byte) {
		resetData(t)
		st := newRESPState(nil)
		defer st.release()
		c := newConn(-1)
		c.framing = st
		do := func(args ...[]byte) []byte {
			st.w.begin(nil)
			respDo(c, st, args)
			return st.w.buf
		}
		words := func(s string) [][]byte { return bytes.Split([]byte(s), []byte(" ")) }
		do(words("ZADD z 1 a 2 b 2 c 3 d 5 e 5 f")...)
		do(words("ZADD l 0 a 0 b 0 c 0 d 0 e")...)
		do(words("SET s v")...)
		if resp3 {
			do(words("HELLO 3")...)
		}
		args := append([][]byte{[]byte(zrangeCommands[int(which)%len(zrangeCommands)])}, bytes.Split(data, []byte(" "))...)
		reply := do(args...)
		if st.w.over {
			return
		}
		if rest, ok := skipReply(reply); !ok || len(rest) != 0 {
			t.Fatalf("%q: not one well-formed reply: %q", args, reply)
		}
		for _, key := range []string{"z", "l", "d", "x", "s"} {
			ent := lookupEntry(key)
			if ent == nil || ent.typ() != tZSet {
				continue
			}
			z, n := ent.obj.zset, 0
			var prev *zset.ZNode
			for node := z.First(); node != nil; node = z.Next(node) {
				if prev != nil && (prev.Score() > node.Score() || prev.Score() == node.Score() && prev.Name() >= node.Name()) {
					t.Fatalf("%q: %s out of order at %q", args, key, node.Name())
				}
				prev, n = node, n+1
			}
			if n != z.Len() || n == 0 {
				t.Fatalf("%q: %s walks %d members, holds %d", args, key, n, z.Len())
			}
		}
	})
}
