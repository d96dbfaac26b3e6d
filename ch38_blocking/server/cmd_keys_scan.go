package server

import (
	"math"
	"strconv"

	"example.com/byor/ch38_blocking/glob"
	"example.com/byor/ch38_blocking/proto"
)

// SCAN walks the key space a stretch at a time (keytable's Scan): the
// cursor is a place in the range of the keys' mixed hash codes, which no
// resize changes, so a key present from the first call to the last is
// returned exactly once. Its top 32 bits are the key table's epoch, which
// moves on only when a client has crowded the keys on purpose and the
// table took a new salt (keytable's package doc): a cursor of another
// epoch starts the scan over, so a key present throughout is then returned
// at least once, perhaps twice, which is what Redis promises. Cursor 0
// starts a scan, and 0 comes back when it is done, whatever the epoch.
// While the table moves its keys to the array of a new salt, a step at a
// time, they are in no one order: a SCAN then returns no keys and the
// cursor that starts the new epoch's walk, and its work moves them along.
//
// Such a client does not keep a scan from ending unless the scan is far
// slower than it: each new salt costs it about as many keys inserted, and
// deleted again, as the key space holds, one or two requests a key (up to
// kMaxTurnRequests of them a turn), or a few items of work each if it
// packs many keys into each request (kMaxTurnWork a turn); the event loop
// serves the scanning client in between, one call a turn, each seeing
// COUNT keys. A scan with COUNT 10 may be outrun by a client that does
// nothing else; one with the largest COUNT (kScanMaxCount) sees about as
// many keys a call as such a client can insert and delete in a turn,
// before it has even found out which of them to keep.

const (
	// kScanMaxCount caps COUNT: one step of the walk covers COUNT slots,
	// and a client may ask for any number.
	kScanMaxCount = 1 << 14
	// kScanMaxWork bounds the work of one SCAN, as kKeysMaxScan bounds
	// KEYS: the slots it looks at, the keys it hashes (kKeyBytesPerItem
	// bytes an item), and its matching (kMatchStepsPerItem steps an item).
	// It is the per-turn bound, kMaxTurnWork, which one request may pass
	// by at most its own bound.
	kScanMaxWork = kMaxTurnWork
	// kScanKeyBytes is how many bytes of keys one of COUNT stands for: a
	// call takes at most COUNT times this many (and its first place's
	// keys, whatever their length), so that COUNT bounds the bytes a call
	// hashes and sends, not only the keys. Keys up to this long come
	// COUNT a call as before; a call over longer ones costs at most some
	// two or three times one over short keys (the bytes sent cost about
	// 3 ns each, a short key's walk and framing 0.3 us).
	kScanKeyBytes = 128
)

// gScanKeys holds the keys one SCAN returns, between the walk and the
// reply; reused, and cleared after each SCAN so it keeps no entry alive.
var gScanKeys []*entry

// scanKeys walks the key space from cursor and puts the keys keep accepts
// in gScanKeys; it returns the next cursor, and whether the keys' reply
// fits in limit bytes, at most over bytes of framing a key (and three
// more for the arrays and the cursor). The walk never goes back: the
// table hands the keys over in the order of their places, a place's keys
// together, and the walk ends before the first place whose keys would
// not fit, which is then the next cursor. So a reply over the limit is
// one place's keys alone, the first of the walk (almost always one key).
//
// As in Redis, COUNT is how much to look at, not how many keys to return:
// the walk takes steps of count slots until it has seen count keys
// (before filtering them), or done ten times count units of work, or
// kScanMaxWork, or taken count*kScanKeyBytes bytes of keys: over keys of
// 64 KB a call with COUNT 1000 returns 2 of them, near what one over
// short keys costs, not the 39 its work would allow (each a copy of
// 64 KB into the reply and to the socket, charged only after). Its work counts every key the table hashes on the way by
// its bytes (keytable's Scan weighs them with keyWeight), and ends the
// walk early once the budget is spent, or once it has hashed about as
// many bytes of keys as the reply has room for: long keys make short
// walks.
// Matching with keep is work too: extra returns it, and past the budget
// the walk ends before the next place. The work goes in workDone. A key
// whose TTL has passed, though its timer has not removed it yet, is
// skipped, as Redis skips it.
func scanKeys(cursor uint64, count int, keep func(*entry) bool, extra func() int, limit, over int) (next uint64, fits bool) {
	gScanKeys = gScanKeys[:0]
	nowUs := getMonotonicUsec()
	budget := min(10*count, kScanMaxWork)
	seen, work, size, groups, full := 0, 0, 3*over, 0, false
	enough := 3*over + count*kScanKeyBytes // the bytes of keys a call takes
	take := func(g []*entry) bool {
		if groups > 0 && (full || size >= enough || work+extra() >= budget) {
			return false
		}
		before, add := len(gScanKeys), 0
		for _, ent := range g {
			seen++
			if ent.heapIdx != -1 && gData.heap[ent.heapIdx].Val <= nowUs {
				continue
			}
			if keep(ent) {
				gScanKeys = append(gScanKeys, ent)
				add += len(ent.key()) + over
			}
		}
		if groups > 0 && size+add > limit {
			clear(gScanKeys[before:])
			gScanKeys, full = gScanKeys[:before], true
			return false
		}
		groups++
		size += add
		return true
	}
	grow, retries := 0, 0
	for {
		// A call's walk may hash no more bytes of keys than the reply has
		// room for, or than it takes: the keys past those would only be
		// hashed again by the next call.
		var w int
		room := max(0, min(limit, enough)-size) / kKeyBytesPerItem
		prev := cursor
		cursor, w = gData.db.Scan(cursor, count, max(grow, min(budget-work, room)), take)
		work += w
		if groups == 0 && cursor == prev && cursor != 0 && retries < 8 {
			// Cut short before its first place: a run of long keys
			// longer than the walk's room. The same walk again would
			// hash them again for nothing; a longer one reaches past.
			retries++
			grow = 2 * max(w, 1)
			continue
		}
		// A walk that got no further has met a key longer than the room
		// left: the next call takes it.
		if cursor == 0 || cursor == prev || full || size >= enough || seen >= count || work+extra() >= budget {
			break
		}
	}
	workDone += work
	return cursor, size <= limit
}

// scanReply walks from cursor and writes the reply: the next cursor
// (written by cursorOut) and the keys, which fit in limit bytes, at most
// over bytes of framing per key, unless one place's keys alone do not
// (see scanKeys). It reports whether the reply fits. If keep gave up
// (refused, when not nil, says so after the walk), it writes nothing and
// reports false.
func scanReply(w replyWriter, cursor uint64, count int, keep func(*entry) bool, extra func() int, refused func() bool, limit, over int, cursorOut func(uint64)) bool {
	next, fits := scanKeys(cursor, min(count, kScanMaxCount), keep, extra, limit, over)
	if refused != nil && refused() {
		clear(gScanKeys)
		return false
	}
	w.outArr(2)
	cursorOut(next)
	w.outArr(len(gScanKeys))
	for _, ent := range gScanKeys {
		w.outStr(ent.key())
	}
	clear(gScanKeys)
	return fits
}

// scanCursor parses a cursor as Redis 7.0 does (C's strtoul on the whole
// argument): an optional sign, then decimal digits, within 64 bits; a
// minus sign negates modulo 2^64, so "-1" is the largest cursor. An empty
// argument is cursor 0, a leading space or a sign alone is an error.
func scanCursor(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	digits := b
	if b[0] == '+' || b[0] == '-' {
		digits = b[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if b[0] == '-' {
		v = -v
	}
	return v, true
}

// scanOptions reads the options of SCAN, HSCAN and ZSCAN after the
// cursor, as pairs in any order, the last of each kind counting: COUNT
// (an integer of at least 1, capped at kScanMaxCount; 10 by default) and
// MATCH ("*", matching all, by default); other, if not nil, takes a pair
// of the command's own (SCAN's TYPE) and says whether it knew it. Any
// other word is a syntax error, answered here, and ok is false.
func scanOptions(w *respWriter, opts [][]byte, other func(name, value []byte) bool) (count int, pattern string, ok bool) {
	count, pattern = 10, "*"
	for i := 0; i < len(opts); i += 2 {
		switch {
		case i+1 < len(opts) && cmdIs(opts[i], "count"):
			n, ok := respInt(opts[i+1])
			if !ok {
				w.err(errNotInt)
				return 0, "", false
			}
			if n < 1 {
				w.err(errSyntax)
				return 0, "", false
			}
			count = int(min(n, kScanMaxCount))
		case i+1 < len(opts) && cmdIs(opts[i], "match"):
			pattern = string(opts[i+1])
		case i+1 < len(opts) && other != nil && other(opts[i], opts[i+1]):
		default:
			w.err(errSyntax)
			return 0, "", false
		}
	}
	return count, pattern, true
}

// keyScanStart reads what a scan of the value at one key takes (key
// cursor [MATCH pattern] [COUNT count]) in Redis 7.0's order of checks:
// the cursor, as SCAN reads one; the key and its type, found by find (a
// missing key answers the empty scan, its options unread, as in Redis);
// then the options. A nil entry means that the reply is written.
func keyScanStart(w *respWriter, args [][]byte, find func(replyWriter, []byte) (*entry, bool)) (ent *entry, cursor uint64, count int, pattern string) {
	cursor, ok := scanCursor(args[2])
	if !ok {
		w.err("ERR invalid cursor")
		return nil, 0, 0, ""
	}
	if ent, ok = find(w, args[1]); !ok {
		return nil, 0, 0, ""
	}
	if ent == nil {
		w.outArr(2)
		w.outStr("0")
		w.outArr(0)
		return nil, 0, 0, ""
	}
	if count, pattern, ok = scanOptions(w, args[3:], nil); !ok {
		return nil, 0, 0, ""
	}
	return ent, cursor, count, pattern
}

// respScan: SCAN cursor [MATCH pattern] [COUNT count] [TYPE type], with
// Redis 7.0's replies and errors. The cursor is checked first; then the
// options, in any order, the last of each kind counting. TYPE takes the
// name TYPE replies (string, zset, hash), in any case; another name
// matches no key, as in 7.0.
func respScan(st *respState, w *respWriter, args [][]byte) {
	cursor, ok := scanCursor(args[1])
	if !ok {
		w.err("ERR invalid cursor")
		return
	}
	typ := -1 // every type
	count, pattern, ok := scanOptions(w, args[2:], func(name, value []byte) bool {
		if !cmdIs(name, "type") {
			return false
		}
		typ = scanTypeOf(value)
		return true
	})
	if !ok {
		return
	}
	usePattern := pattern != "*"
	// MATCH's steps are bounded as KEYS's are (kMatchMaxSteps, over every
	// walk of the request) and counted in the turn's work.
	steps := 0
	keep := func(ent *entry) bool {
		if typ != -1 && ent.typ() != typ {
			return false
		}
		if !usePattern || steps > kMatchMaxSteps {
			return !usePattern
		}
		ok, n, _ := glob.MatchLimit(pattern, ent.key(), kMatchMaxSteps-steps)
		steps += n
		return ok
	}
	refused := func() bool { return steps > kMatchMaxSteps }
	extra := func() int { return steps / kMatchStepsPerItem }
	// The reply may take what the budget has left, at most 25 bytes of
	// framing per key ("$<length>\r\n...\r\n") and the cursor.
	left := w.left()
	scanReply(w, cursor, count, keep, extra, refused, left, respHeaderMax, func(next uint64) {
		w.outStr(strconv.FormatUint(next, 10))
	})
	workDone += extra()
	if refused() {
		w.err(errMatchTooCostly)
	}
}

// scanTypeOf returns the type a TYPE option names, or -2, a type no key
// has, for a name it does not know.
func scanTypeOf(name []byte) int {
	switch {
	case cmdIs(name, "string"):
		return tStr
	case cmdIs(name, "zset"):
		return tZSet
	case cmdIs(name, "hash"):
		return tHash
	case cmdIs(name, "list"):
		return tList
	}
	return -2
}

// doScan: the book's protocol's scan cursor [count]. It replies an array
// of two: the next cursor, an integer (0 once the walk is done), and an
// array of keys. The cursor and count parse as the book's integers do
// (str2int). The cursor is the key table's, read as a signed integer
// both ways: one whose epoch (its top 32 bits) is 2^31 or more goes out
// negative and comes back as it went. Any cursor is accepted, as in
// Redis; one of another epoch starts the walk over.
func doScan(cmd [][]byte, w replyWriter) {
	cursor, ok := str2int(string(cmd[1]))
	if !ok {
		w.outErr(proto.CodeArg, "expect int64")
		return
	}
	count := int64(10)
	if len(cmd) == 3 {
		if count, ok = str2int(string(cmd[2])); !ok || count < 1 {
			w.outErr(proto.CodeArg, "expect positive int64")
			return
		}
	}
	// A key takes 5 bytes of framing (a tag, a length); the two arrays and
	// the integer take 19, 4 more than 3 keys' worth.
	at := w.size()
	keep := func(*entry) bool { return true }
	none := func() int { return 0 }
	if !scanReply(w, uint64(cursor), int(min(count, kScanMaxCount)), keep, none, nil, kMaxReply-4, 5, func(next uint64) {
		w.outInt(int64(next))
	}) {
		w.truncate(at)
		outTooBig(w)
	}
}
