package server

import (
	"bytes"
	"testing"
)

// FuzzStringArgs runs the string commands whose arguments have a grammar
// (SET's and GETEX's options, the ranges of GETRANGE, BITCOUNT and
// BITPOS, SETRANGE's and SETBIT's offsets) with arguments the fuzzer
// makes, split at spaces, on a key holding a string with a TTL: none may
// panic, each answers one well-formed reply, and one that answers an
// error changes neither the value nor its TTL.
func FuzzStringArgs(f *testing.F) {
	for _, seed := range []string{
		"SET k v NX GET EX 10",
		"SET k v EXAT 1 KEEPTTL",
		"SET k v PX 9223372036854775807",
		"GETEX k PXAT 1 PERSIST",
		"GETEX k EX -1",
		"GETRANGE k -9223372036854775808 9223372036854775807",
		"BITCOUNT k -1 -5 BIT",
		"BITPOS k 0 3 -1 BIT",
		"SETRANGE k 9223372036854775807 x",
		"SETBIT k 4294967295 1",
		"LCS k k IDX MINMATCHLEN -3 WITHMATCHLEN",
		"INCRBYFLOAT k 0x1p16383",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fields := bytes.Fields(data)
		if len(fields) == 0 || len(fields) > 12 {
			return
		}
		resetData(t)
		saved := maxAppend
		maxAppend = 1 << 16 // the offsets the fuzzer finds stay small
		defer func() { maxAppend = saved }()
		st := newRESPState(nil)
		defer st.release()
		respDoArgs(st, "SET", "k", "hello", "EX", "1000")
		fields[0] = []byte(stringFuzzCmds[int(fields[0][0])%len(stringFuzzCmds)])
		if len(fields) > 1 {
			fields[1] = []byte("k")
		}
		before, beforeTTL := fuzzKey()
		st.w.begin(nil)
		respDo(&conn{state: stateReq}, st, fields)
		outputHeld -= cap(st.w.buf)
		reply := st.w.buf
		if rest, ok := skipReply(reply); !ok || len(rest) != 0 {
			t.Fatalf("%q: not one well-formed reply: %q", fields, reply)
		}
		if reply[0] == '-' {
			if after, afterTTL := fuzzKey(); after != before || afterTTL != beforeTTL {
				t.Fatalf("%q answered %q, yet changed k from %q (TTL %v) to %q (TTL %v)", fields, reply, before, beforeTTL, after, afterTTL)
			}
		}
	})
}

// stringFuzzCmds are the commands FuzzStringArgs runs, chosen by the
// first byte of its input.
var stringFuzzCmds = []string{"SET", "GETEX", "GETRANGE", "BITCOUNT", "BITPOS", "SETRANGE", "SETBIT", "GETBIT", "LCS", "INCRBYFLOAT", "SETEX", "PSETEX", "BITOP"}

// fuzzKey returns the value at k ("" if none, or not a string) and
// whether it has a TTL.
func fuzzKey() (string, bool) {
	ent := lookupEntry("k")
	if ent == nil || ent.typ() != tStr {
		return "", false
	}
	return ent.val(), ent.heapIdx != -1
}
