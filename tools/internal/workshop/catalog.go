package workshop

import (
	"fmt"
	"strings"
)

// Exercise is one piece of a chapter that a learner writes. Its code is
// whatever the chapter marks with the exercise's id.
type Exercise struct {
	ID      string // "ch10-avl-rotate": the chapter number, then a name
	Chapter string // chapter directory, e.g. "ch10_avl"
	Title   string
	Task    string // what to implement, for list and the learner's README
	Minutes int    // rough time for someone who has read the chapter
	Tests   []TestRef
	Hint    string // shown when the exercise's tests fail
}

// TestRef names tests that exercise the code: a package of the chapter
// (relative, "./avl" or ".") and a go test -run pattern.
type TestRef struct {
	Pkg string
	Run string
}

// Catalog lists the exercises, in chapter order. Each one's tests must
// fail with the stub and pass with the chapter's own code; tools/workshop's
// tests check both.
var Catalog = []Exercise{
	{
		ID: "ch04-framing", Chapter: "ch04_protocol", Title: "length-prefixed messages",
		Task: "Write sock.ReadFull and sock.WriteAll (loop over short reads and writes; " +
			"tell a clean EOF from one inside a message), then proto.WriteMsg and " +
			"proto.ReadMsg on top of them: a 4-byte little-endian length, then the body, " +
			"never more than KMaxMsg bytes.",
		Minutes: 30,
		Tests: []TestRef{
			{"./proto", "^(TestRoundTrip|TestWriteMsgRefusesOversizedBody|TestReadMsgErrors)$"},
			{".", "^TestScripts$"},
		},
		Hint: "read() and write() may move fewer bytes than asked: loop until the buffer is done. " +
			"A read of 0 bytes is EOF: io.EOF before the first byte, io.ErrUnexpectedEOF after it.",
	},
	{
		ID: "ch06-state-machine", Chapter: "ch06_eventloop", Title: "the connection state machine",
		Task: "Write tryFillBuffer, tryOneRequest and tryFlushBuffer in server/conn.go: read what " +
			"the nonblocking socket has into rbuf, answer every complete request in it (the " +
			"reply echoes the request), and write the reply out, switching the connection " +
			"between stateReq, stateRes and stateEnd.",
		Minutes: 60,
		Tests: []TestRef{
			{"./server", "^TestLeftoverRequestsAfterBlockedReply$"},
			{".", "^TestScripts$"},
		},
		Hint: "EAGAIN means 'nothing more for now', not an error: stop and let poll() call again. " +
			"A read may hold half a request or several: handle only complete ones and keep the rest.",
	},
	{
		ID: "ch07-parse-request", Chapter: "ch07_basic", Title: "parsing a request",
		Task: "Write proto.ParseReq: split a request body (a count, then that many strings, " +
			"each a 4-byte length and its bytes) into its strings, rejecting too many " +
			"strings, a string running past the end and trailing bytes.",
		Minutes: 20,
		Tests: []TestRef{
			{"./proto", "^(TestParseReqRoundTrip|TestParseReqErrors)$"},
			{".", "^TestScripts$"},
		},
		Hint: "Check that 4 bytes are there before reading each length, and that the length " +
			"fits in what is left (compare by subtraction, so a huge length cannot overflow); " +
			"once every string is read, nothing may be left over.",
	},
	{
		ID: "ch08-progressive-resize", Chapter: "ch08_hashtable", Title: "progressive resizing",
		Task: "Write HMap.startResizing and HMap.helpResizing in hashtable/hashtable.go: when " +
			"the load factor is reached, make the current table the old one and start a " +
			"bigger one; then every operation moves a bounded number of nodes across.",
		Minutes: 40,
		Tests: []TestRef{
			{"./hashtable", "^(TestRandomOps|TestOldTableMidResize|TestResizeSchedule|TestEmptyMap)$"},
		},
		Hint: "helpResizing must stop after a fixed amount of work and drop the old table once " +
			"it is empty; Lookup and Pop must look in both tables while a resize is running.",
	},
	{
		ID: "ch09-serialize", Chapter: "ch09_serialize", Title: "serializing replies",
		Task: "Write OutNil, OutStr, OutInt, OutErr and OutArr in proto/serialize.go: append " +
			"one tagged value (the type byte, then its little-endian fields) to the reply.",
		Minutes: 20,
		Tests: []TestRef{
			{"./proto", "^TestOutLayout$"},
			{".", "^TestScripts$"},
		},
		Hint: "Every value starts with its one-byte tag; strings and errors carry a 4-byte " +
			"length before their bytes; integers are 8 bytes, little-endian.",
	},
	{
		ID: "ch10-avl-rotate", Chapter: "ch10_avl", Title: "AVL rotations",
		Task: "Write rotLeft and rotRight (keep parent links and update Depth and Cnt " +
			"bottom-up) and fixLeft and fixRight (the single and double rotations that " +
			"rebalance a subtree two levels out of balance).",
		Minutes: 40,
		Tests: []TestRef{
			{"./avl", "^(TestSequentialInsert|TestRandomInsert|TestInsertEveryPosition|TestRandomDelete)$"},
		},
		Hint: "Three links change in a rotation, each in both directions (child and parent). " +
			"Update the node that ends up lower before the one that ends up on top.",
	},
	{
		ID: "ch10-avl-fix", Chapter: "ch10_avl", Title: "AVL rebalancing after an insert",
		Task: "Write avl.Fix: walk from a node up to the root, updating each node and " +
			"rebalancing it with fixLeft or fixRight, and return the (possibly new) root.",
		Minutes: 25,
		Tests: []TestRef{
			{"./avl", "^(TestSingle|TestSequentialInsert|TestRandomInsert|TestInsertEveryPosition)$"},
		},
		Hint: "A rotation replaces the node with another one: remember which slot of the parent " +
			"pointed at it before rotating, and point that slot at the result.",
	},
	{
		ID: "ch10-avl-delete", Chapter: "ch10_avl", Title: "AVL delete",
		Task: "Write avl.Del: detach a node, putting its in-order successor in its place " +
			"when it has a right subtree, and rebalance up to the root.",
		Minutes: 40,
		Tests: []TestRef{
			{"./avl", "^(TestRandomDelete|TestDeleteEveryPosition|TestDeleteRoot|TestReinsert)$"},
		},
		Hint: "Without a right child the left subtree takes the node's place. Otherwise detach the " +
			"leftmost node of the right subtree (a recursive Del) and move it into the node's place.",
	},
	{
		ID: "ch11-avl-offset", Chapter: "ch11_zset", Title: "rank offsets in the AVL tree",
		Task: "Write avl.Offset: the node a given number of places after (or before) a node in " +
			"sorted order, in O(log n) steps using the subtree sizes in Cnt.",
		Minutes: 35,
		Tests: []TestRef{
			{"./avl", "^TestOffset$"},
			{"./zset", "^(TestSeekGEOffset|TestOffsetNil)$"},
		},
		Hint: "Keep the rank of the current node relative to the start. Descend when the target " +
			"is inside a child subtree (Cnt tells), otherwise climb to the parent and adjust the rank.",
	},
	{
		ID: "ch11-zquery", Chapter: "ch11_zset", Title: "zquery",
		Task: "Write ZSet.SeekGE (the first member at or after a (score, name) pair) and the " +
			"zquery command in server/commands.go: seek, move by offset, then reply with up " +
			"to limit (name, score) pairs.",
		Minutes: 35,
		Tests: []TestRef{
			{"./zset", "^(TestSeekGEOffset|TestOrdering|TestNaN)$"},
			{".", "^TestScripts$/^(zquery|zerrors)$"},
		},
		Hint: "SeekGE remembers the last node that is not less than the key while descending. " +
			"zquery answers an array of 2*n items: the array header first, its count fixed at the end.",
	},
	{
		ID: "ch12-dlist", Chapter: "ch12_timers", Title: "the intrusive list",
		Task: "Write DList.Detach and DList.InsertBefore: unlink a node from its circular " +
			"list, and link a node in front of another.",
		Minutes: 15,
		Tests: []TestRef{
			{"./dlist", "^(TestInitEmpty|TestRandomAgainstSlice|TestReinsertDetached)$"},
		},
		Hint: "The list is a ring through its head: every node has a prev and a next, so no " +
			"case needs a nil check.",
	},
	{
		ID: "ch12-idle-timers", Chapter: "ch12_timers", Title: "idle timers on the list",
		Task: "Keep connections on gData.idleList ordered by last activity (in connectionIO), " +
			"then write nextTimerMs (how long poll() may sleep) and processTimers (close " +
			"every connection idle for longer than idleTimeoutMs).",
		Minutes: 30,
		Tests: []TestRef{
			{".", "^(TestIdleTimeout|TestScripts)$"},
		},
		Hint: "Moving an active connection to the back keeps the list sorted, so the front is " +
			"always the next timer to fire; processTimers stops at the first one not yet due.",
	},
	{
		ID: "ch13-heap", Chapter: "ch13_heap_ttl", Title: "the heap",
		Task: "Write up and down in heap/heap.go: move an item towards the root while its " +
			"parent is bigger, or towards the leaves while a child is smaller, keeping " +
			"each item's Ref equal to its index.",
		Minutes: 25,
		Tests: []TestRef{
			{"./heap", "^(TestRandomAgainstMap|TestPopOrder)$"},
		},
		Hint: "After every move, write the item's new index through its Ref; going down, " +
			"follow the smaller child.",
	},
	{
		ID: "ch13-expiry", Chapter: "ch13_heap_ttl", Title: "expiring keys",
		Task: "Write nextTimerMs and processTimers in server/timers.go: poll() sleeps until the " +
			"nearest idle timer or TTL, and each loop iteration closes idle connections and " +
			"deletes keys whose TTL is due, at most kMaxWorks of them.",
		Minutes: 30,
		Tests: []TestRef{
			{"./server", "^(TestMassExpiryIsBounded|TestDeleteRemovesTimer)$"},
			{".", "^(TestIdleTimeout|TestScripts)$"},
		},
		Hint: "The heap's root is the nearest TTL. Bound the expiry loop, so a mass expiry is " +
			"spread over several loop iterations instead of stalling every client.",
	},
	{
		ID: "ch14-pool-queue", Chapter: "ch14_threadpool", Title: "the thread pool's queue",
		Task: "Write ThreadPool.Queue, worker and pop in threadpool/threadpool.go: producers " +
			"append under the mutex and signal, workers wait on the condition variable in a " +
			"loop, pop one task and run it without the lock, and exit once closed and drained.",
		Minutes: 35,
		Tests: []TestRef{
			{"./threadpool", "^Test"},
			{"./server", "^TestLargeZSetTornDownOnPool$"},
		},
		Hint: "Always wait in a for loop that re-checks the condition, and run the task after " +
			"unlocking; a popped slot must be cleared so the task's memory can be reclaimed.",
	},
	{
		ID: "ch15-accept-all", Chapter: "ch15_hardening", Title: "accepting when descriptors run out",
		Task: "Write acceptAll in server/accept.go: accept every pending connection and hand " +
			"each to start; stop at EAGAIN; skip one that gave up waiting (ECONNABORTED); on " +
			"EMFILE, ENFILE, ENOBUFS or ENOMEM pause accepting for kAcceptBackoffMs, and log " +
			"each failure through logAcceptError.",
		Minutes: 20,
		Tests: []TestRef{
			{"./server", "^(TestAcceptAllTakesEveryPending|TestAcceptErrorsRateLimited)$"},
			{".", "^TestScripts$"},
		},
		Hint: "The pause is gAccept.pausedUntil, a monotonic time in microseconds: the event " +
			"loop leaves the listener out of poll() until then, and nextTimerMs wakes it when " +
			"the pause ends. Without it, a listener still readable wakes the loop at once.",
	},
	// Beyond the book: hash fields with their own time to live.
	{
		ID: "ch16-field-expiry", Chapter: "ch16_field_ttl", Title: "expiring hash fields",
		Task: "Write Hash.Expire, Hash.condHolds and Hash.ExpireSome in hashes/hashes.go: give " +
			"one field an expiry if NX, XX, GT or LT allows it (answering NoField, NotMet, " +
			"Deleted or OK), and reclaim up to a budget of expired fields, earliest first, " +
			"from the hash's heap of expiries.",
		Minutes: 25,
		Tests: []TestRef{
			{"./hashes", "^(TestExpireCodes|TestAgainstModel|TestMassExpiry)$"},
			{"./server", "^TestMassFieldExpiryIsBounded$"},
		},
		Hint: "Look the field up with h.live (an expired one is absent), check the condition " +
			"before the time, and delete the field when the time is not after now. For GT and " +
			"LT a field without an expiry expires at infinity. The heap's root is the earliest " +
			"expiry: a field is expired only once now is past it, and setExpiry and remove " +
			"keep the heap and its counts right.",
	},
	// The book's chapter 06 exercises, done in ch17 and checked by its tests.
	{
		ID: "ch17-read-offset", Chapter: "ch17_syscalls", Title: "consume requests by offset (the book's ch06 exercise 2)",
		Task: "Handling a request must not move the rest of the read buffer: advance " +
			"conn.rbufStart past the request in tryOneRequest, and move the leftover bytes " +
			"to the front of rbuf only in tryFillBuffer, just before the next read.",
		Minutes: 20,
		Tests: []TestRef{
			{"./server", "^(TestReadBufferConsumedByOffset|TestRepliesBatchedInOneWrite)$"},
			{".", "^TestScripts$"},
		},
		Hint: "rbuf[rbufStart:rbufEnd] holds the bytes not yet handled. Before reading, copy " +
			"them to the front, so that a request of the largest size still fits.",
	},
	{
		ID: "ch17-batched-replies", Chapter: "ch17_syscalls", Title: "one write for many replies (the book's ch06 exercise 3)",
		Task: "Write serveRequests in server/conn.go: answer every complete request in rbuf " +
			"while the output allows and the turn's share (kMaxTurn bytes of replies) is not " +
			"spent, then send all the replies with one write, and go round again for requests " +
			"left over once the write made room.",
		Minutes: 30,
		Tests: []TestRef{
			{"./server", "^(TestRepliesBatchedInOneWrite|TestBacklogBoundedAndResumed|TestBadRequestAfterBacklog|TestTurnBounded)$"},
			{".", "^(TestScripts|TestNeverReadingClient)$"},
		},
		Hint: "tryOneRequest appends to wbuf and tryFlushBuffer writes it; loop while canAnswer " +
			"allows, counting the bytes each reply adds to conn.pending(). Requests left in rbuf " +
			"after a full write must be answered without waiting for input: the client may have " +
			"nothing more to send. Those left past kMaxTurn wait for the next turn.",
	},
	// Beyond the book: one exercise for the lesson of each of these chapters.
	{
		ID: "ch21-resp-parse", Chapter: "ch21_resp2", Title: "parsing a RESP request",
		Task: "Write parseRequest in resp/parse.go: read one request from the front of the " +
			"buffer, an array of bulk strings (a count line, then for each string a length " +
			"line, its bytes and CRLF) or, for anything else, an inline line (parseInline), " +
			"returning its arguments as slices of the buffer, the bytes it took, and " +
			"ErrIncomplete (with the length the buffer needs) or a ProtocolError.",
		Minutes: 35,
		Tests: []TestRef{
			{"./resp", "^(TestParseRequest|TestParseRequestIncomplete|TestParseRequestErrors|TestParseRequestRedisSizes|TestParseRequestFromResumes|TestParseRequestNoRoom|FuzzParseRESP)$"},
			{".", "^(TestRESPWire|TestRESPProtocolErrors)$"},
		},
		Hint: "headerLine reads the *3 and $5 lines. Check each bound before trusting a " +
			"number: the count against MaxArgs, a length against 0 and MaxBulkLen, and the " +
			"bytes and their CRLF against the end of the buffer. Build the arguments only when " +
			"args has room for the whole count, otherwise only check and count; clear the " +
			"slots on every error (dropArgs), and record in p where each element starts.",
	},
	{
		ID: "ch22-resp-fill", Chapter: "ch22_resp_bounds", Title: "growing the RESP read buffer within the budget",
		Task: "Write respState.fill in server/resp_conn.go: compact the read buffer, hand a " +
			"large pending bulk string to its own buffer (takeBig, fillBig), take the usual " +
			"16 KiB buffer when there is none, and grow a full one only geometrically, " +
			"doubling, or to the request's end when its last bulk string is pending and ends " +
			"sooner, every byte taken from the budget first; then read once into its free end.",
		Minutes: 30,
		Tests: []TestRef{
			{"./server", "^(TestRESPReadBufferCopiesBounded|TestRESPPartialRequestsBudgeted|TestRESPHogClosed|TestRESPArgumentsBudgeted)$"},
			{".", "^(TestRESPWire|TestRESPProtocolErrors)$"},
		},
		Hint: "st.need says how long the buffer must be before the request can be whole; " +
			"grow only when the buffer is full, never to what a client merely announces " +
			"(lastPending tells when need is the request's end). Ask budgetMake before every " +
			"allocation, add what it allowed to inputHeld, and refuse with errClientMemory " +
			"when it says no; an empty buffer goes back to the usual size (shrink).",
	},
	{
		ID: "ch23-glob-match", Chapter: "ch23_handshake", Title: "glob matching in linear time, within a limit",
		Task: "Write matchLimit in glob/glob.go: match a string against a glob pattern (*, ?, " +
			"sets and escapes, one token at a time with one) without backtracking: remember " +
			"only the last * and where the string resumes after it, and on a mismatch let " +
			"that * take one more byte; count the steps and give up once they pass limit.",
		Minutes: 25,
		Tests: []TestRef{
			{"./glob", "^(TestMatch|TestPathological|TestBoundOnAll|TestMatchLimit|FuzzMatch)$"},
			{"./server", "^(TestRESPConfigMatchBounded|TestRESPConfigNames)$"},
		},
		Hint: "A run of stars is one star, and a trailing one matches the rest at once. Only " +
			"the last star ever needs to retry: whatever earlier stars took, it can take " +
			"instead. Count one step for each turn of the loop and the extra bytes of a set " +
			"(one returns its length); past limit, return false, the steps and done false.",
	},
	{
		ID: "ch25-scan-cursor", Chapter: "ch25_scan", Title: "SCAN's cursor over a resizing table",
		Task: "Write the marked part of Table.Scan and Table.scanTab in keytable/keytable.go: " +
			"read the cursor as a place in the hash's order (a cursor of another epoch starts " +
			"again at 0), end the stretch count slots of the larger array further on, collect " +
			"the entries placed in it from both arrays of a resize, and hand them to fn in " +
			"order of place, those of one place together, the next cursor where the walk ended.",
		Minutes: 40,
		Tests: []TestRef{
			{"./keytable", "^(TestScanWhileChanging|TestScanSmall|TestScanCollisions|TestScanBudget|TestScanTakesSome|TestScanDuringChangeOfSalt)$"},
			{"./server", "^(TestRESPScanWhileAdding|TestRESPScanOtherEpoch|TestBookScan)$"},
		},
		Hint: "A place is the top 32 bits of the mixed hash, and home turns it into a slot of " +
			"any length, so a stretch [lo, hi) covers the same keys in every array. An entry " +
			"sits between its home and the next empty slot: walk from home(lo) past home(hi-1) " +
			"to an empty slot. Past the budget, stop at the last empty slot seen inside the " +
			"stretch and end the stretch at its first place; when fn refuses a group, its place " +
			"is the next cursor.",
	},
	{
		ID: "ch26-watch-exec", Chapter: "ch26_transactions", Title: "WATCH's dirty marks and EXEC's check",
		Task: "Write touchWatchers in server/watch.go, which marks dirty every connection " +
			"watching a key just changed and takes it out of that key's watchers, and the " +
			"marked part of respExec in server/cmd_multi.go: refuse an EXEC without MULTI, " +
			"discard a transaction with a command refused when queued (EXECABORT), and answer " +
			"a null array when a watched key was touched or its TTL has come due since WATCH.",
		Minutes: 25,
		Tests: []TestRef{
			{"./server", "^(TestMultiExec|TestMultiQueueErrors|TestWatchTouched|TestWatchSelfAndScope|TestWatchExpiry|TestWatchWriteCost|TestWatchDirtyThenWatchedAgain)$"},
		},
		Hint: "A key that is gone now and was already due when watched (st.tx.watched[key] is " +
			"true) has not changed: skip its watchers. Drop the key from watchers once its set " +
			"is empty, and leave the connection's other keys to its own EXEC. Every way out of " +
			"EXEC ends the transaction (endMulti); the scan for due TTLs counts its keys in " +
			"workDone.",
	},
	{
		ID: "ch27-set-options", Chapter: "ch27_strings", Title: "SET's option grammar",
		Task: "Write parseStringOpts in server/cmd_string_set.go: read SET's options (NX, XX, GET, " +
			"KEEPTTL and one of EX, PX, EXAT, PXAT with its time) or GETEX's (a timed form " +
			"or PERSIST), refusing NX with XX, two different expiry forms and a timed form " +
			"with no time after it; the same form given twice keeps the last time.",
		Minutes: 20,
		Tests: []TestRef{
			{"./server", "^(TestParseStringOpts|TestRESPSetOptions|TestRESPGetExGetDel)$"},
		},
		Hint: "Options are matched without regard to case (cmdIs). NX, XX and GET only set a " +
			"flag; every other option is a form, and a form may only follow nothing or " +
			"itself. The time is kept as written: expireAtMs judges it later.",
	},
	{
		ID: "ch28-bit-spans", Chapter: "ch28_bits", Title: "counting and finding bits in a span",
		Task: "Write countBits, spanMask and firstBit in server/cmd_bitmap.go: count the bits set " +
			"between two bit offsets of a string, and find the first bit equal to 0 or 1 " +
			"there, reading whole 8-byte words in the middle of the span and masking the " +
			"bytes at its ends; charge the bytes read with chargeBytes.",
		Minutes: 30,
		Tests: []TestRef{
			{"./server", "^(TestBitSpans|TestRESPRanges)$"},
		},
		Hint: "Bit 0 is the highest bit of the first byte. Only the first and the last byte " +
			"of a span may hold bits outside it: spanMask keeps the bits of byte i that lie " +
			"within from..to. Take a word (the word helper) only when it lies strictly between " +
			"those two bytes. To look for a 0, look for a 1 in the byte flipped.",
	},
	{
		ID: "ch29-rename-copy", Chapter: "ch29_keys", Title: "RENAME moves a value, COPY clones it",
		Task: "Write the marked part of respRename in server/cmd_keys_move.go (RENAME and RENAMENX: " +
			"move the entry itself to its new key, whatever it holds, dropping what the new " +
			"key held) and of respCopy (COPY, once its options are read: refuse a value past " +
			"the bounds, drop the destination for REPLACE, insert the copy copyEntry makes " +
			"with the source's TTL and its fields' timers).",
		Minutes: 25,
		Tests: []TestRef{
			{"./server", "^(TestRESPRename|TestRESPRenameFreesLargeOnPool|TestRESPCopy|TestRESPCopyTooBig|TestExecKeysWorkWithinEstimate)$"},
		},
		Hint: "Move the entry, not its value: take it out of the key table (removeEntry) " +
			"before changing its key, and put it back with insertEntry, so its TTL timer and a " +
			"hash's field timer, which point at the entry, follow it. A string's value shares kv " +
			"with its key: rebuild kv and klen, and charge the bytes. A key renamed onto itself " +
			"changes nothing. What the new key held goes as DEL's does (entryDel); check COPY's " +
			"bounds before anything changes.",
	},
	{
		ID: "ch30-hscan-order", Chapter: "ch30_hashes", Title: "the dense order HSCAN walks",
		Task: "Write Hash.unplace and Hash.Scan in hashes/hashes.go: take a deleted field out " +
			"of h.order by moving the last field into its place (and give the array's memory " +
			"back once it is mostly empty), and walk h.order downward from the cursor's place " +
			"for HSCAN, skipping expired fields, until count places are visited or fn stops it.",
		Minutes: 20,
		Tests: []TestRef{
			{"./hashes", "^(TestScanThroughResizes|TestScanSmallAndCursors|TestAtCoversOrder|TestScanStops|TestAgainstModel)$"},
			{"./server", "^(TestRESPHScan|TestRESPHScanThroughChanges|TestRESPHRandField)$"},
		},
		Hint: "Each field keeps its index in pos: the field that moves must get the hole's. " +
			"Clear the last slot so the array holds no pointer to a deleted field. Cursor c > 0 " +
			"means place c-1 is next, and one past the top (the array shrank) starts again at " +
			"the top; a hash of at most all fields is walked whole. When fn refuses a field, its " +
			"place is the next cursor; below place 0 the cursor is 0.",
	},
	{
		ID: "ch31-zrange-walk", Chapter: "ch31_zranges", Title: "walking a range by score or by name",
		Task: "Write zrangeSpec.seek, which first and last call (the lowest member within a " +
			"range of scores or names, or with rev the highest) and the part of zrangeSpec.walk in " +
			"server/cmd_zset_range.go after the range by rank: start at the range's first member " +
			"(its last for REV), jump LIMIT's offset, then step while the member is within " +
			"the other end and the limit lasts.",
		Minutes: 35,
		Tests: []TestRef{
			{"./server", "^(TestZRangeWalkModel|TestRESPZRangeExclusiveMin)$"},
		},
		Hint: "Before seeking, check that the range is not empty and reaches the set's ends " +
			"(inMin of the last member, inMax of the first); after it, that the member found is " +
			"within the other end. The offset is one z.Offset call, negative for REV; a " +
			"negative offset, or one past the set, gives nothing, and a negative limit takes " +
			"all. Charge each seek (chargeSeek) and each step (kVisitWork and lexWork).",
	},
	{
		ID: "ch32-weights-aggregate", Chapter: "ch32_zalgebra", Title: "WEIGHTS and AGGREGATE",
		Task: "Write zalgOptions in server/cmd_zset_algebra.go, which reads the options after the keys " +
			"(WEIGHTS with one weight a key, AGGREGATE SUM, MIN or MAX, WITHSCORES unless the " +
			"result is stored, LIMIT for ZINTERCARD), then zalgWeighted and zalgCombine, which " +
			"weigh a member's score in one input and fold it into its score so far, as Redis does.",
		Minutes: 25,
		Tests: []TestRef{
			{"./server", "^(TestZAlgebraModel|TestZAlgebraRepeatsModel|TestZAlgebraKeyNamedAgain|FuzzZAlgebraArgs)$"},
		},
		Hint: "Each option may come again, the last one counting; WEIGHTS takes exactly as many " +
			"numbers as there are keys, and ZDIFF takes neither WEIGHTS nor AGGREGATE. A product " +
			"or a sum that is not a number (0 times an infinity, inf plus -inf) counts as 0, and " +
			"MIN and MAX keep the score so far unless the new one is strictly below or above it. " +
			"Write float64(...) around the product and the sum so that Go rounds each one.",
	},
	{
		ID: "ch33-aof-records", Chapter: "ch33_aof", Title: "the log's records, written and read back",
		Task: "Write aofAppend in server/aof.go, which appends one command to aofBuf as a RESP " +
			"array of bulk strings, and aofReader.record in server/aof_load.go, which reads " +
			"one back at start: the count, then each argument's length, bytes and CRLF, " +
			"telling a record cut off by the end of the file from one that is damaged.",
		Minutes: 30,
		Tests: []TestRef{
			{"./server", "^(TestAOFLogsChanges|TestAOFReplay|TestAOFLoadCutTail|TestAOFLoadDamage|TestAOFLoadHostileBounded)$"},
		},
		Hint: "A record is *<n>, then n times $<len>, the bytes and CRLF, every line ending in " +
			"CRLF. Make room first (aofGrow with aofSize), count the command in aofCmds and " +
			"charge its bytes. Reading, use ar.count for the two kinds of line (it bounds " +
			"them), ar.bytes for an argument (it allocates only what the file holds) and " +
			"ar.line for the CRLF after it; a command of no arguments is damage.",
	},
	{
		ID: "ch34-rdb-entry", Chapter: "ch34_rdb", Title: "one key in RDB's format",
		Task: "Write rdbAppendLen and rdbAppendString in server/rdb_write.go, RDB's length encoding " +
			"(6 bits, 14 bits, or a marker byte and 32 or 64 bits, big-endian) and a string as its " +
			"length and bytes, then rdbEncoder.entry, which writes one key: its expiry, its type " +
			"byte, its name and its value (a string, a sorted set's members with binary scores, " +
			"a hash's live fields).",
		Minutes: 30,
		Tests: []TestRef{
			{"./server", "^(TestRDBRoundTrip|TestRDBFieldTTLs|TestRDBChecksumBeforeKeys)$"},
		},
		Hint: "A length's top two bits say its form: 00 for 6 bits, 01 for 14 (the high 6 bits in " +
			"the first byte, the low 8 in the next), then the byte 0x80 or 0x81 before 4 or 8 " +
			"big-endian bytes; 11 is an encoded string, never a length. The expiry comes first, " +
			"with rdbAppendExpire. A sorted set is rdbTypeZSet2: a count, then each member's name " +
			"and its score as 8 little-endian bytes, in order. A hash whose fields have TTLs, in " +
			"a file of version 12, is rdbAppendFieldTTLs's. Return the work: a unit a key, " +
			"kVisitWork a member or field, and the bytes over kWorkBytes.",
	},
	{
		ID: "ch35-snapshot-parts", Chapter: "ch35_bgsave", Title: "a big value written over several turns",
		Task: "Write snapshot.writeMore in server/snapshot.go, which carries on a big sorted set, " +
			"hash or string written over several turns: write the long strings left from the last " +
			"stretch, then the next batch of members or fields, until the budget is spent; at the " +
			"value's end write what follows it, mark it written and append the keys copied on " +
			"write meanwhile (side).",
		Minutes: 35,
		Tests: []TestRef{
			{"./server", "^(TestSnapshotSplitsBigValues|TestCopyOnWriteBigValueInParts|TestSnapshotBigStringNotCopied|TestSnapshotFewBigMembersInParts|TestSnapshotOneInstant)$"},
		},
		Hint: "The value is unfinished while partAt is not nil, partIdx is not -1 or segs are left. " +
			"Segs come first: drain them a slice at a time (at least kSnapStraightBytes, or the " +
			"budget left in bytes; all of it for math.MaxInt, when a change waits); the next " +
			"stretch waits for them. Take kRewriteBatch members or fields a stretch, with " +
			"s.straight, and flush a full buffer only when no seg points into it. At the end " +
			"use splitEnd, or stringTail for a string (partStr), set the mark, count the key, " +
			"and move side into buf, charging its bytes.",
	},
	{
		ID: "ch36-rewrite-entry", Chapter: "ch36_aof_rewrite", Title: "one key rewritten as commands",
		Task: "Write aofEncoder.entry and aofEncoder.zsetMembers in server/aof_rewrite.go, which " +
			"write one key of the snapshot as the commands that rebuild it: SET for a string, HSET " +
			"and ZADD in batches of kRewriteBatch, an HPEXPIREAT for each field with a TTL, and " +
			"PEXPIREAT for the key's own.",
		Minutes: 25,
		Tests: []TestRef{
			{"./server", "^(TestRewriteSmallValues|TestRewriteTailInTurns|TestSnapshotSplitsBigValues|TestSnapshotFewBigMembersInParts)$"},
		},
		Hint: "Write each command with appendCommand (zsetMembers with appendCommandStraight, " +
			"whose straight may be nil), a score with formatScore so that it reads back exactly. " +
			"zsetMembers stops after count members, or with straight once the names pass " +
			"kSnapFlushBytes, and returns the member after the last it wrote. Take a hash's live " +
			"fields at nowMs (GetAll), their times with ExpireTime; the key's expiry comes last, " +
			"after the value it applies to. Return the work: a unit a key, kVisitWork a member " +
			"or field, and the bytes over kWorkBytes.",
	},
	{
		ID: "ch37-listpack", Chapter: "ch37_lists", Title: "a listpack's entries, read both ways",
		Task: "Write appendEntry, entryAt and prevOff in quicklist/quicklist.go: an entry is its " +
			"encoding (the length in 1, 2 or 5 bytes: 0x80 plus n below 64, 0xe0 and 12 bits below " +
			"4096, 0xf0 and 32 bits little-endian), its bytes, and the length of those two again, " +
			"written so that it can be read from its end; entryAt reads one forwards, prevOff " +
			"finds the one before.",
		Minutes: 25,
		Tests: []TestRef{
			{"./quicklist", "^(TestListAgainstModel|TestWalkBothWays|TestShrunkNodeFits)$"},
		},
		Hint: "The backward length is backlenSize(e) bytes for an encoding and value of e bytes, " +
			"7 bits a byte, the most significant first, every byte but the first with its top bit " +
			"set: reading backwards from the byte before an entry, add 7 bits a byte until a byte " +
			"without the top bit, which is where the length starts.",
	},
	{
		ID: "ch38-waitq", Chapter: "ch38_blocking", Title: "a queue of waiters per key",
		Task: "Write Queues.Park and Queues.UnparkSome in waitq/waitq.go: Park puts a waiter at " +
			"the back of the queue of each of its keys (a key named twice, once), making a key's " +
			"queue when it is the first to wait there; UnparkSome takes it out of up to n of its " +
			"queues, its last keys first, and a queue left empty goes. The server parks a " +
			"blocking pop's client with them and serves each key's queue from its head.",
		Minutes: 20,
		Tests: []TestRef{
			{"./waitq", "^TestQueues$"},
			{".", "^(TestBlockFIFO|TestBlockLostWakeup)$"},
		},
		Hint: "Each waiter keeps one dlist node per key it waits on, in w.nodes, made with " +
			"room for every key at once: the nodes are linked into the queues, so the slice " +
			"must never grow and move them. A queue's head is a dlist.DList of its own, Init'ed, " +
			"in q.byKey; InsertBefore the head puts a node at the back. UnparkSome detaches " +
			"nodes from the end of w.nodes, deletes a key from byKey once its head is Empty, " +
			"and cuts w.keys and w.nodes to what is left (never copying the nodes).",
	},
}

// Lookup returns the exercise with the given id.
func Lookup(id string) (Exercise, error) {
	for _, ex := range Catalog {
		if ex.ID == id {
			return ex, nil
		}
	}
	var ids []string
	for _, ex := range Catalog {
		ids = append(ids, ex.ID)
	}
	return Exercise{}, fmt.Errorf("no exercise %q; the exercises are: %s", id, strings.Join(ids, ", "))
}
