package server

import (
	"math"
	"strconv"
)

// EXPIREAT and PEXPIREAT, which the log writes every expiry as: an
// absolute unix time replays the same however late the replay. Their
// rows are added to the command table unless it has them already; a row
// of the table's own must keep what respExpireAtIn does while the log is
// replayed (TestAOFLoadPastExpiry).
func init() {
	for _, c := range []*command{
		{name: "expireat", arity: -3, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respExpireAtIn(1000), cost: costExpire},
		{name: "pexpireat", arity: -3, flags: flagWrite | flagFast, first: 1, last: 1, step: 1, resp: respExpireAtIn(1), cost: costExpire},
	} {
		if commands[c.name] == nil {
			commands[c.name] = c
		}
	}
}

// respExpireAtIn returns EXPIREAT key seconds [NX|XX|GT|LT] (unitMs
// 1000) or PEXPIREAT key ms [...] (1). A time not in the future deletes
// the key, as in Redis; but while the log is replayed it sets a timer due
// at once, as Redis's loading does: a later command in the log, written
// before the key's timer fired, must still find the key (the timers
// delete it once the loop runs, and log that).
func respExpireAtIn(unitMs int64) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) {
		for _, opt := range args[3:] {
			if !cmdIs(opt, "nx") && !cmdIs(opt, "xx") && !cmdIs(opt, "gt") && !cmdIs(opt, "lt") {
				w.err("ERR Unsupported option " + string(opt))
				return
			}
		}
		at, ok := respInt(args[2])
		if !ok {
			w.err(errNotInt)
			return
		}
		if at > math.MaxInt64/unitMs || at < math.MinInt64/unitMs {
			w.err(errExpireTime(running.name))
			return
		}
		nowMs := int64(getUnixMs())
		rel := at*unitMs - nowMs
		if at*unitMs < 0 && rel > 0 {
			rel = math.MinInt64 // overflow: long past
		}
		if !aofLoading {
			// EXPIRE's own handler, given the time from now in ms.
			args = append([][]byte{args[0], args[1], strconv.AppendInt(nil, rel, 10)}, args[3:]...)
			respExpire(w, args, 1)
			return
		}
		ent := lookupEntry(args[1])
		if ent == nil {
			w.outInt(0)
			return
		}
		entrySetTTL(ent, max(rel, 0))
		w.outInt(1)
	}
}
