package server

import (
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseStringOpts: SET's and GETEX's options, as one grammar: which
// combinations it takes, and what it makes of them.
func TestParseStringOpts(t *testing.T) {
	type result struct {
		NX, XX, Get bool
		Form        expiryForm
		When        string
		OK          bool
	}
	for _, tc := range []struct {
		args   string
		forSet bool
		want   result
	}{
		{"", true, result{OK: true}},
		{"nx get", true, result{NX: true, Get: true, OK: true}},
		{"XX EX 10", true, result{XX: true, Form: expEX, When: "10", OK: true}},
		{"EX 10 EX 20", true, result{Form: expEX, When: "20", OK: true}},
		{"PXAT 5 pxat 6", true, result{Form: expPXAT, When: "6", OK: true}},
		{"KEEPTTL KEEPTTL", true, result{Form: expKeepTTL, OK: true}},
		{"EXAT 1 GET", true, result{Get: true, Form: expEXAT, When: "1", OK: true}},
		{"NX XX", true, result{}},
		{"XX NX", true, result{}},
		{"EX 1 PX 1", true, result{}},
		{"EX 1 KEEPTTL", true, result{}},
		{"KEEPTTL PXAT 1", true, result{}},
		{"EX", true, result{}},
		{"PERSIST", true, result{}},
		{"NXX", true, result{}},
		{"EX 10", false, result{Form: expEX, When: "10", OK: true}},
		{"PERSIST persist", false, result{Form: expPersist, OK: true}},
		{"PERSIST EX 1", false, result{}},
		{"EXAT 1 PERSIST", false, result{}},
		{"KEEPTTL", false, result{}},
		{"NX", false, result{}},
		{"GET", false, result{}},
		{"PX", false, result{}},
	} {
		var args [][]byte
		for _, f := range strings.Fields(tc.args) {
			args = append(args, []byte(f))
		}
		o, ok := parseStringOpts(args, tc.forSet)
		got := result{OK: ok}
		if ok {
			got = result{o.nx, o.xx, o.get, o.form, string(o.when), true}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%q (SET %v): -want +got\n%s", tc.args, tc.forSet, d)
		}
	}
}

// TestRESPSetOptions: SET's options as Redis 7.0 answers them, and the
// commands that are SET with options fixed.
func TestRESPSetOptions(t *testing.T) {
	resetData(t)
	now := strconv.FormatInt(int64(getUnixMs())/1000, 10)
	respSteps(t,
		"SET k v NX => +OK|",
		"SET k w NX => $-1|",
		"SET k w NX GET => $1|v|",
		"GET k => $1|v|",
		"SET n w XX => $-1|",
		"SET n w XX GET => $-1|",
		"EXISTS n => :0|",
		"SET k w GET EX 100 => $1|v|",
		"SET k x KEEPTTL => +OK|",
		"TTL k => :100|",
		"SET k y => +OK|",
		"TTL k => :-1|",
		"SET k v EXAT "+now+"0 => +OK|",
		"SET k v PXAT 1 => +OK|",
		"EXISTS k => :0|", // an absolute time in the past: gone at once
		"SET k v EX 0 => -ERR invalid expire time in 'set' command|",
		"SET k v PXAT -1 => -ERR invalid expire time in 'set' command|",
		"SET k v EX 9223372036854776 => -ERR invalid expire time in 'set' command|",
		"SET k v PX 9223372036854775807 => -ERR invalid expire time in 'set' command|",
		"SET k v EX x => -ERR value is not an integer or out of range|",
		"SET k v EX 1 PX 1 => -ERR syntax error|",
		"SET k v NX XX => -ERR syntax error|",
		"SETEX k 0 v => -ERR invalid expire time in 'setex' command|",
		"PSETEX k -5 v => -ERR invalid expire time in 'psetex' command|",
		"SETEX k 100 v => +OK|",
		"TTL k => :100|",
		"PSETEX k 100000 w => +OK|",
		"TTL k => :100|",
		"SETNX k x => :0|",
		"SETNX m x => :1|",
		"GETSET m y => $1|x|",
		"GETSET nothere y => $-1|",
		"ZADD z 1 a => :1|",
		"SET z v GET => "+wrongType,
		"ZCARD z => :1|", // nothing changed
		"GETSET z v => "+wrongType,
		"SET z v XX => +OK|",
		"GET z => $1|v|",
	)
}

// TestRESPGetExGetDel: GETEX sets or drops the expiry of a string it
// answers; GETDEL deletes it.
func TestRESPGetExGetDel(t *testing.T) {
	resetData(t)
	respSteps(t,
		"GETEX k EX 0 => $-1|", // a missing key: null before the time is read
		"SET k v => +OK|",
		"GETEX k EX 100 => $1|v|",
		"TTL k => :100|",
		"GETEX k => $1|v|",
		"TTL k => :100|",
		"GETEX k PERSIST => $1|v|",
		"TTL k => :-1|",
		"GETEX k EX 0 => -ERR invalid expire time in 'getex' command|",
		"GETEX k EX 1 PX 1 => -ERR syntax error|",
		"GETEX k KEEPTTL => -ERR syntax error|",
		"GETEX k PXAT 1 => $1|v|",
		"EXISTS k => :0|",
		"SET k v => +OK|",
		"GETDEL k => $1|v|",
		"GETDEL k => $-1|",
		"ZADD z 1 a => :1|",
		"GETDEL z => "+wrongType,
		"GETEX z => "+wrongType,
	)
}

// TestRESPRanges: GETRANGE's, BITCOUNT's and BITPOS's ranges, counted
// from the end when negative and clamped as Redis does.
func TestRESPRanges(t *testing.T) {
	resetData(t)
	respSteps(t,
		"GETRANGE k 0 -1 => $0||",
		"SET k Hello => +OK|",
		"GETRANGE k 0 -1 => $5|Hello|",
		"GETRANGE k -3 -1 => $3|llo|",
		"GETRANGE k -1 -3 => $0||",
		"GETRANGE k -100 -99 => $1|H|",
		"GETRANGE k -10 -20 => $0||", // both clamp to 0, yet empty
		"BITCOUNT k -10 -20 => :0|",
		"GETRANGE k 2 100 => $3|llo|",
		"SUBSTR k 4 2 => $0||",
		"GETRANGE k 0 x => -ERR value is not an integer or out of range|",
		"SET b foobar => +OK|",
		"BITCOUNT b => :26|",
		"BITCOUNT b 1 1 => :6|",
		"BITCOUNT b 5 30 BIT => :17|",
		"BITCOUNT b -1 -5 BAD => :0|", // empty before the unit is read
		"BITCOUNT b 0 1 BAD => -ERR syntax error|",
		"BITCOUNT b 0 => -ERR syntax error|",
		"BITCOUNT nothere 0 => :0|",
		"SET p \xff\xf0\x00 => +OK|",
		"BITPOS p 0 => :12|",
		"BITPOS p 1 2 => :-1|",
		"BITPOS p 1 7 15 BIT => :7|",
		"BITPOS p 0 0 1 => :12|",
		"BITPOS p 0 0 7 BIT => :-1|",
		"BITPOS q 0 => :0|",
		"BITPOS q 1 => :-1|",
		"SET f \xff\xff => +OK|",
		"BITPOS f 0 => :16|",      // no end given: the zeros past the string
		"BITPOS f 0 0 -1 => :-1|", // an end given: none in the range
		"BITPOS f 2 => -ERR The bit argument must be 1 or 0.|",
	)
}

// TestRESPSetRangeBits: SETRANGE and SETBIT grow a string with zero
// bytes, and refuse what would pass the longest string, changing nothing.
func TestRESPSetRangeBits(t *testing.T) {
	resetData(t)
	saved := maxAppend
	maxAppend = 100
	t.Cleanup(func() { maxAppend = saved })
	respSteps(t,
		"SETRANGE k 3 ab => :5|",
		"GET k => $5|\x00\x00\x00ab|",
		"SETRANGE k 0 x => :5|",
		"GET k => $5|x\x00\x00ab|",
		"SETRANGE n 10 => -ERR wrong number of arguments for 'setrange' command|",
		"SETRANGE k 99 ab => -ERR string exceeds maximum allowed size (proto-max-bulk-len)|",
		"SETRANGE k -1 ab => -ERR offset is out of range|",
		"STRLEN k => :5|",
		"SETBIT k 800 1 => -ERR bit offset is not an integer or out of range|",
		"SETBIT k 7 2 => -ERR bit is not an integer or out of range|",
		"SETBIT b 7 1 => :0|",
		"SETBIT b 7 1 => :1|",
		"SETBIT b 799 1 => :0|",
		"STRLEN b => :100|",
		"GETBIT b 7 => :1|",
		"GETBIT b 6 => :0|",
		"GETBIT b 798 => :0|",
		"GETBIT b 100000 => -ERR bit offset is not an integer or out of range|",
		"GETBIT b -1 => -ERR bit offset is not an integer or out of range|",
	)
	if got := lookupEntry("b").val(); got[0] != 1 || got[99] != 1 || strings.Trim(got[1:99], "\x00") != "" {
		t.Errorf("SETBIT b 7 1, SETBIT b 799 1: %q", got)
	}
}

// TestRESPBitOp: BITOP pads shorter strings with zeros, stores a result as
// long as the longest, deletes the destination for an empty one, and
// refuses more than kBitOpMaxBytes of sources.
func TestRESPBitOp(t *testing.T) {
	resetData(t)
	respSteps(t,
		"SET a \xf0\x0f => +OK|",
		"SET b \xff => +OK|",
		"BITOP AND d a b => :2|",
		"GET d => $2|\xf0\x00|",
		"BITOP OR d a b => :2|",
		"GET d => $2|\xff\x0f|",
		"BITOP XOR d a b nothere => :2|",
		"GET d => $2|\x0f\x0f|",
		"BITOP NOT d b => :1|",
		"GET d => $1|\x00|",
		"BITOP NOT d a b => -ERR BITOP NOT must be called with a single source key.|",
		"BITOP NAND d a b => -ERR syntax error|",
		"BITOP OR d x y => :0|",
		"EXISTS d => :0|",
		"ZADD z 1 m => :1|",
		"BITOP OR d a z => "+wrongType,
	)
	saved := kBitOpMaxBytes
	kBitOpMaxBytes = 3
	t.Cleanup(func() { kBitOpMaxBytes = saved })
	respSteps(t,
		"BITOP OR d a b => :2|",
		"BITOP OR d a b b => -"+errBitOpTooLong()+"|",
		"GET d => $2|\xff\x0f|",
	)
}

// TestRESPLCS: LCS's subsequence, its length and its matching ranges, the
// example of Redis's documentation, and the bound on its table.
func TestRESPLCS(t *testing.T) {
	resetData(t)
	respSteps(t,
		"MSET a ohmytext b mynewtext => +OK|",
		"LCS a b => $6|mytext|",
		"LCS a b LEN => :6|",
		"LCS a b IDX => *4|$7|matches|*2|*2|*2|:4|:7|*2|:5|:8|*2|*2|:2|:3|*2|:0|:1|$3|len|:6|",
		"LCS a b IDX MINMATCHLEN 4 WITHMATCHLEN => *4|$7|matches|*1|*3|*2|:4|:7|*2|:5|:8|:4|$3|len|:6|",
		"LCS a b IDX LEN => -ERR If you want both the length and indexes, please just use IDX.|",
		"LCS a b MINMATCHLEN => -ERR syntax error|",
		"LCS a nothere => $0||",
		"ZADD z 1 m => :1|",
		"LCS a z => -ERR The specified keys must contain string values|",
	)
	saved := kLCSMaxCells
	kLCSMaxCells = 9 * 10 // "ohmytext" and "mynewtext" and their empty prefixes
	t.Cleanup(func() { kLCSMaxCells = saved })
	respSteps(t, "LCS a b LEN => :6|")
	kLCSMaxCells--
	respSteps(t, "LCS a b LEN => -"+errLCSTooLong()+"|")
	// With an empty string there is no table, whatever the other's length.
	kLCSMaxCells = 5
	respSteps(t, "LCS a nothere => $0||", "LCS nothere b LEN => :0|")
	kLCSMaxCells = saved

	// The table counts in the budget of all connections while it is
	// held, and nothing stays counted after. (Strings of some hundreds of
	// bytes, so that the table as bits is more than the error's reply.)
	long, short := strings.Repeat("mynewtext", 70), strings.Repeat("ohmytext", 40)
	respRun(t, "MSET", "la", long, "lb", short)
	saveBudget(t)
	held := inputHeld
	_, table := newLCSBits(long, short, true)
	maxOutputTotal = outputHeld + inputHeld + table + len(short) - 1
	respSteps(t, "LCS lb la => -"+errLCSMemory+"|")
	maxOutputTotal += 1 + 1<<20 // and room for the reply
	respSteps(t, "LCS a b LEN => :6|", "LCS a b => $6|mytext|")
	if got := respRun(t, "LCS", "lb", "la"); !strings.HasPrefix(got, "$") {
		t.Errorf("LCS lb la with room: %.40q", got)
	}
	if inputHeld != held {
		t.Errorf("LCS left %d bytes counted in the budget", inputHeld-held)
	}
}

// TestRESPMSetNX: MSETNX sets all its keys or none.
func TestRESPMSetNX(t *testing.T) {
	resetData(t)
	respSteps(t,
		"MSETNX a 1 b 2 => :1|",
		"MSETNX b 3 c 4 => :0|",
		"EXISTS c => :0|",
		"MSETNX c 1 c 2 => :1|",
		"GET c => $1|2|",
		"MSETNX c => -ERR wrong number of arguments for 'msetnx' command|",
		"MSETNX d 1 e => -ERR wrong number of arguments for 'msetnx' command|",
	)
}

// TestRESPIncrByFloat: the sums and the printing of Redis 7.0 (each
// answer as a real redis-server 7.0 on x86-64 gives it), the errors, and the key's TTL
// kept.
func TestRESPIncrByFloat(t *testing.T) {
	resetData(t)
	respSteps(t,
		"INCRBYFLOAT f 10.50 => $4|10.5|",
		"INCRBYFLOAT f 0.1 => $4|10.6|",
		"INCRBYFLOAT f -5.0e3 => $23|-4989.39999999999999991|",
		"SET f 5.0e3 => +OK|",
		"INCRBYFLOAT f 2.0e2 => $4|5200|",
		"SET f 1 => +OK|",
		"INCRBYFLOAT f 1e-20 => $1|1|",
		"SET f 0 => +OK|",
		"INCRBYFLOAT f 1e-17 => $19|0.00000000000000001|",
		"INCRBYFLOAT f -2e-17 => $20|-0.00000000000000001|",
		"INCRBYFLOAT f 0.000000000000000001 => $20|-0.00000000000000001|",
		"SET f -1e-18 => +OK|",
		"INCRBYFLOAT f 0 => $1|0|", // "-0.00000000000000000" less its zeros
		"SET f 1e30 => +OK|",
		"INCRBYFLOAT f 0 => $31|1000000000000000000024696061952|",
		"INCRBYFLOAT f 1e5000 => -ERR value is not a valid float|",
		"INCRBYFLOAT f inf => -ERR increment would produce NaN or Infinity|",
		"INCRBYFLOAT f nan => -ERR value is not a valid float|",
		"INCRBYFLOAT f 1x => -ERR value is not a valid float|",
		"SET f 1.18e4932 => +OK|",
		"INCRBYFLOAT f 1.18e4932 => -ERR increment would produce NaN or Infinity|",
		"SET f abc => +OK|",
		"INCRBYFLOAT f 1 => -ERR value is not a valid float|",
		"ZADD z 1 m => :1|",
		"INCRBYFLOAT z 1 => "+wrongType,
		"SET t 1.5 EX 100 => +OK|",
		"INCRBYFLOAT t 1 => $3|2.5|",
		"TTL t => :100|",
	)
}

// TestFormatLongDouble: the extended format's rounding shows in the 17
// digits Redis prints: 0.1 + 0.2 is exact to them in 64 bits of mantissa,
// where a float64 would print 0.30000000000000004.
func TestFormatLongDouble(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"0.1", "0.2", "0.3"},
		{"3.0", "1.1", "4.1"},
		{"1", "-1", "0"},
		{"123456789012345678", "1", "123456789012345679"},
		{"12345678901234567890", "1", "12345678901234567891"},   // within 64 bits
		{"123456789012345678901", "1", "123456789012345678904"}, // past them
		{"0x10", "0.5", "16.5"},
	} {
		a, ok1 := parseLongDouble(tc.a)
		b, ok2 := parseLongDouble(tc.b)
		if !ok1 || !ok2 {
			t.Fatalf("%s or %s: not a long double", tc.a, tc.b)
		}
		sum := new(big.Float).SetPrec(kLongDoublePrec).Add(a, b)
		if got := formatLongDouble(sum); got != tc.want {
			t.Errorf("%s + %s = %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}
