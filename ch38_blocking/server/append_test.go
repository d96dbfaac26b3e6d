package server

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// respAppender runs APPENDs of arg to key through respDo, one RESP state
// and reply buffer for all, so that what a run allocates is the key
// space's, and checks each reply against the value's length.
type respAppender struct {
	st   *respState
	conn *conn
	cmd  [][]byte
	want int
}

func newRESPAppender(key, arg string, length int) *respAppender {
	return &respAppender{st: newRESPState(nil), conn: &conn{state: stateReq}, cmd: [][]byte{[]byte("APPEND"), []byte(key), []byte(arg)}, want: length}
}

func (a *respAppender) run(t *testing.T) {
	t.Helper()
	a.want += len(a.cmd[2])
	a.st.w.begin(a.st.w.buf[:0])
	respDo(a.conn, a.st, a.cmd)
	var buf [24]byte // the expected reply, without allocating
	want := append(strconv.AppendInt(append(buf[:0], ':'), int64(a.want), 10), '\r', '\n')
	if !bytes.Equal(a.st.w.buf, want) {
		t.Fatalf("APPEND: %q, want %q", a.st.w.buf, string(want))
	}
}

// TestAppendCopiesLinear: 10,000 APPENDs of one byte to a 1 MB value copy
// O(n) bytes in all, not a whole value each (10 GB): the value keeps room
// to grow (entry.appendVal). Counted twice over: in the bytes the Go heap
// allocated for them, and in the work the meter was charged.
func TestAppendCopiesLinear(t *testing.T) {
	resetData(t)
	const size, appends = 1_000_000, 10_000
	respSteps(t, fmt.Sprintf("SET big %s => +OK|", strings.Repeat("v", size)))
	a := newRESPAppender("big", "x", size)
	a.st.w.buf = make([]byte, 0, 64) // room for every reply
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	work := workDone
	for range appends {
		a.run(t)
	}
	work = workDone - work
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d APPENDs of one byte to a %d-byte value: %d bytes allocated, %d units of work", appends, size, allocated, work)
	// The first APPEND copies the value, into room for as much again (up
	// to maxAppend), and is charged for it; the others copy their byte,
	// charged with their arguments (less than one unit). Copying the value
	// each time would allocate 10 GB and charge 156 million units.
	if work < size/kWorkBytes {
		t.Errorf("%d APPENDs of one byte charged %d units of work, less than the copy of the value", appends, work)
	}
	if limit := uint64(2 * (size + appends)); allocated > limit {
		t.Errorf("%d APPENDs of one byte allocated %d bytes, more than %d", appends, allocated, limit)
	}
	if limit := 2 * (size + appends) / kWorkBytes; work > limit {
		t.Errorf("%d APPENDs of one byte charged %d units of work, more than %d", appends, work, limit)
	}
	ent := lookupEntry("big")
	if got, want := ent.val(), strings.Repeat("v", size)+strings.Repeat("x", appends); got != want {
		t.Fatalf("the value: %d bytes, want %d", len(got), len(want))
	}
}

// TestAppendGrowthCharged: the APPEND that moves a value into room to
// grow (with its key, the first time) and one that finds too little room
// left are charged the bytes they copy, and the others only their
// arguments; the copies add up to less than twice the value. The room is
// never more than the value (but for the allocator's rounding), nor much
// past maxAppend.
func TestAppendGrowthCharged(t *testing.T) {
	resetData(t)
	lowerMaxAppend(t, 1<<20)
	const size = 100_000
	respSteps(t, fmt.Sprintf("SET k %s => +OK|", strings.Repeat("v", size)))
	chunk := strings.Repeat("x", 10_000)
	a := newRESPAppender("k", chunk, size)
	length, copied, moves := size, 0, 0
	for length+len(chunk) <= maxAppend {
		ent := lookupEntry("k")
		copies := 0
		switch {
		case ent.obj == nil:
			copies = len("k") + length
		case ent.obj.str.Cap()-length < len(chunk):
			copies = length
		}
		work := workDone
		a.run(t)
		if want := argBytes(a.cmd)/kWorkBytes + copies/kWorkBytes; workDone-work != want {
			t.Errorf("APPEND to %d bytes charged %d units, want %d", length, workDone-work, want)
		}
		if copies > 0 {
			moves++
		}
		copied += copies
		length += len(chunk)
		if ent.obj == nil || ent.obj.str == nil {
			t.Fatalf("after APPEND to %d bytes: the value has no room to grow", length)
		}
		str := ent.obj.str
		if ent.key() != "k" || str.Len() != length || str.Cap() > min(2*length, maxAppend)+8192 {
			t.Fatalf("after APPEND to %d bytes: key %q, length %d, room for %d", length, ent.key(), str.Len(), str.Cap())
		}
	}
	t.Logf("%d APPENDs of %d bytes from %d bytes to %d: %d moves, %d bytes copied", (length-size)/len(chunk), len(chunk), size, length, moves, copied)
	if copied > 2*length {
		t.Errorf("%d bytes copied to grow a value to %d", copied, length)
	}
	respSteps(t, fmt.Sprintf("APPEND k %s => :%d|", strings.Repeat("z", maxAppend-length), maxAppend))
	length = maxAppend
	respSteps(t,
		"APPEND k y => -ERR string exceeds maximum allowed size (proto-max-bulk-len)|",
		fmt.Sprintf("STRLEN k => :%d|", length),
	)
}

// TestAppendedValueRead: a value grown by APPEND reads as any string, on
// both protocols and through every command that reads or replaces one,
// and a SET gives it back its one-string layout.
func TestAppendedValueRead(t *testing.T) {
	resetData(t)
	respSteps(t,
		"SET n 4 => +OK|",
		"APPEND n 1 => :2|",
		"APPEND n 0 => :3|",
		"GET n => $3|410|",
		"INCR n => :411|",
		"APPEND n 9 => :4|",
		"APPEND n x => :5|",
		"STRLEN n => :5|",
		"TYPE n => +string|",
		"APPEND s ab => :2|",
		"APPEND s cd => :4|",
		"MGET s n x => *3|$4|abcd|$5|4119x|$-1|",
		"SET s xyz GET => $4|abcd|",
		"GET s => $3|xyz|",
		"APPEND s 1 => :4|",
		"KEYS s => *1|$1|s|",
		"SCAN 0 MATCH s => *2|$1|0|*1|$1|s|",
		"EXPIRE s 100 => :1|",
		"APPEND s 2 => :5|",
		"TTL s => :100|",
		"ZADD s 1 m => "+wrongType,
		"HSET s f v => "+wrongType,
		"MSET s 7 => +OK|",
		"TTL s => :-1|",
		"APPEND s 8 => :2|",
		"INCRBY s 2 => :80|",
		"APPEND s 9 => :3|",
		"SET s v EX 100 => +OK|",
		"APPEND s w => :2|",
		"DEL s n => :2|",
		"EXISTS s => :0|",
	)
	if ent := lookupEntry("s"); ent != nil {
		t.Fatalf("s after DEL: %v", ent)
	}
	respSteps(t, "APPEND s aa => :2|", "APPEND s bb => :4|")
	if got := run("get", "s"); got != run("get", "s") || !strings.HasSuffix(got, "aabb") {
		t.Errorf("the book's get of an appended value: %q", got)
	}
	if got := run("zadd", "s", "1", "m"); !strings.Contains(got, "expect zset") {
		t.Errorf("the book's zadd on an appended value: %q", got)
	}
	run("set", "s", "plain")
	if ent := lookupEntry("s"); ent.obj != nil || ent.val() != "plain" || ent.key() != "s" {
		t.Errorf("after the book's set: obj %v, key %q, val %q", ent.obj, ent.key(), ent.val())
	}
}

// TestAppendTouchesWatchers: every APPEND to a watched key fails the
// watcher's EXEC, whether it moves the value into room to grow, writes
// into the room, or moves it to a larger builder.
func TestAppendTouchesWatchers(t *testing.T) {
	resetTx(t)
	a, b := newTxClient(t), newTxClient(t)
	b.expect(okReply, "SET", "k", "v")
	length := 1
	for _, step := range []struct {
		arg, path string
	}{{"x", "moved out"}, {"y", "into the room"}, {strings.Repeat("z", 100), "grown"}} {
		ent := lookupEntry("k")
		path := "into the room"
		switch {
		case ent.obj == nil:
			path = "moved out"
		case ent.obj.str.Cap()-length < len(step.arg):
			path = "grown"
		}
		if path != step.path {
			t.Fatalf("an APPEND of %d bytes to %d: %s, want %s", len(step.arg), length, path, step.path)
		}
		a.expect(okReply, "WATCH", "k")
		length += len(step.arg)
		b.expect(fmt.Sprintf(":%d\r\n", length), "APPEND", "k", step.arg)
		a.expect(okReply, "MULTI")
		a.expect(queued, "SET", "ran", "1")
		a.expect(nullArray, "EXEC")
		if lookupEntry("ran") != nil {
			t.Fatalf("the transaction ran after an APPEND %s", path)
		}
	}
}

// lowerMaxAppend sets maxAppend to n for the test, so that it reaches the
// bound without strings of 512 MB.
func lowerMaxAppend(t *testing.T, n int) {
	old := maxAppend
	maxAppend = n
	t.Cleanup(func() { maxAppend = old })
}
