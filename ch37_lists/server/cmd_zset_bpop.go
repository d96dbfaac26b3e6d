package server

import (
	"math"
	"math/big"
)

// The blocking pops, BZPOPMIN, BZPOPMAX and BZMPOP, as far as a server
// that does not block goes: when one of the keys has members they pop at
// once, as Redis does, and inside a transaction (where Redis never
// blocks) they answer a null array when every key is empty. Outside one,
// Redis would park the client until a member comes or the timeout
// passes; waiting on a key is the subject of a later chapter, so here
// they refuse with errWouldBlock instead, and nothing changes.

// errWouldBlock refuses a blocking pop whose keys are all empty.
func errWouldBlock(name string) string {
	return "ERR " + name + " would block: every key is empty, and this server does not block clients (yet)"
}

// parseBlockTimeout reads a blocking command's timeout in seconds (a
// float), with Redis's errors; 0 is forever. Redis 7.0 turns the seconds
// into milliseconds as a long long, the C way: toward zero, and a value
// past the type's range (inf, 1e30) becomes its most negative one, so
// that it too is "negative". It checks no upper bound.
func parseBlockTimeout(w *respWriter, arg []byte) bool {
	secs, ok := parseLongDouble(string(arg))
	if !ok {
		w.err("ERR timeout is not a float or out of range")
		return false
	}
	ms, _ := new(big.Float).SetPrec(kLongDoublePrec).Mul(secs, big.NewFloat(1000)).Float64()
	if math.Trunc(ms) < 0 || ms >= math.MaxInt64 {
		w.err("ERR timeout is negative")
		return false
	}
	return true
}

// respBZPopOf: BZPOPMIN and BZPOPMAX key [key ...] timeout pop one member
// from the first key that holds a sorted set, answering [key, member,
// score]. A key of another type before it is WRONGTYPE.
func respBZPopOf(name string, max bool) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		if !parseBlockTimeout(w, args[len(args)-1]) {
			return
		}
		for _, key := range args[1 : len(args)-1] {
			workDone++ // each key looked up, up to the first that has members
			ent, ok := zsetOf(w, key)
			if !ok {
				return
			}
			if ent == nil {
				continue
			}
			if !zPopFits(w, ent.obj.zset, max, 1) {
				w.err(errReplyMemory)
				return
			}
			w.outArr(3)
			w.outStr(ent.key())
			zPop(w, ent, max, 1, false)
			return
		}
		if st.inMulti {
			w.outNilArray()
			return
		}
		w.err(errWouldBlock(name))
	}
}

// respBZMPop: BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
// is ZMPOP with a timeout.
func respBZMPop(st *respState, w *respWriter, args [][]byte) {
	zmpop(st, w, args[1:], args[1])
}

// costBZPop: BZPOPMIN and BZPOPMAX look up their keys and pop one member.
func costBZPop(p *execPlan, args [][]byte) int {
	return len(args)*(kVisitWork+kMemberWork) + len(args)
}

// costBZMPop: BZMPOP is ZMPOP after the timeout.
func costBZMPop(p *execPlan, args [][]byte) int { return costZMPop(p, args[1:]) }
