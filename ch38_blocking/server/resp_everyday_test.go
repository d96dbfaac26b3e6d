package server

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// respSteps runs RESP commands in order, each "CMD arg ... => reply", the
// reply as its raw RESP2 bytes with \r\n written as "|".
func respSteps(t *testing.T, steps ...string) {
	t.Helper()
	for _, step := range steps {
		cmd, want, _ := strings.Cut(step, " => ")
		got := strings.ReplaceAll(respRun(t, strings.Fields(cmd)...), "\r\n", "|")
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", cmd, got, want)
		}
	}
}

const wrongType = "-" + errWrongType + "|"

// TestRESPIncr: INCR and its kin count in int64, refuse what would pass
// its limits and values that are not integers as Redis reads them, keep
// the key's TTL, and change nothing when they refuse.
func TestRESPIncr(t *testing.T) {
	resetData(t)
	respSteps(t,
		"INCR n => :1|",
		"INCRBY n 9223372036854775806 => :9223372036854775807|",
		"INCR n => -ERR increment or decrement would overflow|",
		"INCRBY n 1 => -ERR increment or decrement would overflow|",
		"GET n => $19|9223372036854775807|",
		"DECRBY n 9223372036854775807 => :0|",
		"DECRBY n 9223372036854775807 => :-9223372036854775807|",
		"DECR n => :-9223372036854775808|",
		"DECR n => -ERR increment or decrement would overflow|",
		"INCRBY n -1 => -ERR increment or decrement would overflow|",
		"DECRBY n -9223372036854775808 => -ERR decrement would overflow|",
		"INCRBY n 9223372036854775807 => :-1|",
		"INCRBY n 9223372036854775808 => -ERR value is not an integer or out of range|",
		"INCRBY n +1 => -ERR value is not an integer or out of range|",
		"INCRBY n 01 => -ERR value is not an integer or out of range|",
		"GET n => $2|-1|",
		"SET s 007 => +OK|",
		"INCR s => -ERR value is not an integer or out of range|",
		"SET s abc => +OK|",
		"DECR s => -ERR value is not an integer or out of range|",
		"GET s => $3|abc|",
		"ZADD z 1 a => :1|",
		"INCR z => "+wrongType,
		"DECRBY z 1 => "+wrongType,
		"SET t 41 EX 1000 => +OK|",
		"INCR t => :42|",
	)
	if ttl := respRun(t, "TTL", "t"); ttl != ":1000\r\n" && ttl != ":999\r\n" {
		t.Errorf("TTL after INCR: %q, want the TTL kept", ttl)
	}
	// A value with spaces around it is not an integer either.
	run("set", "sp", " 1")
	respSteps(t, "INCR sp => -ERR value is not an integer or out of range|")
}

// TestRESPMGetMSet: MSET replaces any type and drops TTLs; MGET answers
// null for what is not a string.
func TestRESPMGetMSet(t *testing.T) {
	resetData(t)
	respSteps(t,
		"SET a x EX 100 => +OK|",
		"ZADD z 1 m => :1|",
		"MSET a 1 z 2 b 3 b 4 => +OK|",
		"TTL a => :-1|",
		"TYPE z => +string|",
		"MGET a z b nosuch => *4|$1|1|$1|2|$1|4|$-1|",
		"HSET h f v => :1|",
		"MGET h a => *2|$-1|$1|1|",
		"MSET a => -ERR wrong number of arguments for 'mset' command|",
		"MSET a 9 b => -ERR wrong number of arguments for 'mset' command|",
		"GET a => $1|1|",
		"STRLEN b => :1|",
		"STRLEN nosuch => :0|",
		"STRLEN h => "+wrongType,
		"APPEND b 23 => :3|",
		"APPEND new ab => :2|",
		"APPEND h x => "+wrongType,
		"GET b => $3|423|",
	)
}

// TestRESPAppendBound: APPEND stops at the size of the largest value one
// request can set, and its refusal changes nothing.
func TestRESPAppendBound(t *testing.T) {
	resetData(t)
	lowerMaxAppend(t, 1<<20)
	chunk := strings.Repeat("x", 256<<10)
	for i := 1; i <= 4; i++ {
		if got := respRun(t, "APPEND", "k", chunk); got != fmt.Sprintf(":%d\r\n", i*len(chunk)) {
			t.Fatalf("APPEND #%d: %q", i, got)
		}
	}
	if got := respRun(t, "APPEND", "k", "y"); !strings.HasPrefix(got, "-ERR string exceeds maximum allowed size") {
		t.Fatalf("APPEND past %d bytes: %q", maxAppend, got)
	}
	respSteps(t, fmt.Sprintf("STRLEN k => :%d|", maxAppend))
}

// TestRESPTypeCmd: TYPE on each kind of value, on both protocols.
func TestRESPTypeCmd(t *testing.T) {
	resetData(t)
	run("set", "s", "v")
	run("zadd", "z", "1", "m")
	run("hset", "h", "f", "v")
	respSteps(t, "TYPE s => +string|", "TYPE z => +zset|", "TYPE h => +hash|", "TYPE nosuch => +none|",
		"TYPE => -ERR wrong number of arguments for 'type' command|")
	// The book's protocol answers a string: the reply GET gives for a
	// key holding that word.
	for key, want := range map[string]string{"s": "string", "z": "zset", "h": "hash", "nosuch": "none"} {
		run("set", "ref", want)
		if got, ref := run("type", key), run("get", "ref"); got != ref {
			t.Errorf("book's type %s: %q, want %q", key, got, ref)
		}
		run("del", "ref")
	}
}

// TestRESPHashEveryday: HMGET, HINCRBY (its errors, the field's TTL kept),
// HKEYS and HVALS.
func TestRESPHashEveryday(t *testing.T) {
	resetData(t)
	respSteps(t,
		"HMGET nosuch a b => *2|$-1|$-1|",
		"HSET h f x n 10 => :2|",
		"HMGET h f nope n => *3|$1|x|$-1|$2|10|",
		"HINCRBY h n 5 => :15|",
		"HINCRBY h new -3 => :-3|",
		"HINCRBY h f 1 => -ERR hash value is not an integer|",
		"HINCRBY h n x => -ERR value is not an integer or out of range|",
		"HINCRBY h n 9223372036854775807 => -ERR increment or decrement would overflow|",
		"HGET h n => $2|15|",
		"HINCRBY c n 1 => :1|",
		"TYPE c => +hash|",
		"SET s v => +OK|",
		"HINCRBY s n 1 => "+wrongType,
		"HMGET s f => "+wrongType,
		"HKEYS s => "+wrongType,
		"HVALS nosuch => *0|",
		"HPEXPIRE h 100000 FIELDS 1 n => *1|:1|",
		"HINCRBY h n 1 => :16|",
	)
	if got := respRun(t, "HPTTL", "h", "FIELDS", "1", "n"); !regexp.MustCompile(`^\*1\r\n:(100000|99\d\d\d)\r\n$`).MatchString(got) {
		t.Errorf("HPTTL after HINCRBY: %q, want the field's TTL kept", got)
	}
	keys := respRun(t, "HKEYS", "h")
	vals := respRun(t, "HVALS", "h")
	for _, want := range []string{"$1\r\nf\r\n", "$1\r\nn\r\n", "$3\r\nnew\r\n"} {
		if !strings.HasPrefix(keys, "*3\r\n") || !strings.Contains(keys, want) {
			t.Errorf("HKEYS h = %q, want 3 keys, %q among them", keys, want)
		}
	}
	for _, want := range []string{"$1\r\nx\r\n", "$2\r\n16\r\n", "$2\r\n-3\r\n"} {
		if !strings.HasPrefix(vals, "*3\r\n") || !strings.Contains(vals, want) {
			t.Errorf("HVALS h = %q, want 3 values, %q among them", vals, want)
		}
	}
}

// TestRESPZSetEveryday: ZRANK, ZREVRANK, ZCOUNT's ranges, ZINCRBY and
// the reverse ranges, on a set with tied scores and infinities.
func TestRESPZSetEveryday(t *testing.T) {
	resetData(t)
	respSteps(t,
		"ZADD z -inf lo 1 a 2 b 2 c 3 d +inf hi => :6|",
		"ZRANK z lo => :0|", "ZRANK z c => :3|", "ZREVRANK z c => :2|", "ZREVRANK z hi => :0|",
		"ZRANK z nope => $-1|", "ZRANK nosuch a => $-1|",
		"ZCOUNT z -inf +inf => :6|", "ZCOUNT z 2 2 => :2|", "ZCOUNT z (2 3 => :1|", "ZCOUNT z (1 (3 => :2|",
		"ZCOUNT z (-inf (+inf => :4|", "ZCOUNT z 3 1 => :0|", "ZCOUNT z (2 (2 => :0|", "ZCOUNT z +inf +inf => :1|",
		"ZCOUNT z x 1 => -ERR min or max is not a float|", "ZCOUNT nosuch 0 1 => :0|",
		"ZREVRANGE z 0 1 => *2|$2|hi|$1|d|",
		"ZREVRANGE z -2 -1 WITHSCORES => *4|$1|a|$1|1|$2|lo|$4|-inf|",
		"ZREVRANGE z 0 0 REV => -ERR syntax error|",
		"ZREVRANGE z 0 0 BYSCORE => -ERR syntax error|",
		"ZRANGE z 1 2 REV => *2|$1|d|$1|c|",
		"ZRANGE z 0 0 REV REV => -ERR syntax error|",
		"ZRANGE z 0 1 BYSCORE BYSCORE => -ERR syntax error|",
		"ZRANGE z 2 1 BYSCORE REV => *3|$1|c|$1|b|$1|a|",
		"ZRANGE z (2 1 BYSCORE REV => *1|$1|a|",
		"ZRANGE z 3 (2 BYSCORE REV => *1|$1|d|",
		"ZRANGE z +inf -inf BYSCORE REV LIMIT 1 2 => *2|$1|d|$1|c|",
		"ZRANGE z 1 2 BYSCORE REV => *0|",
		"ZINCRBY z 2.5 a => $3|3.5|",
		"ZINCRBY z 1 new => $1|1|",
		"ZINCRBY z -inf hi => -ERR resulting score is not a number (NaN)|",
		"ZSCORE z hi => $3|inf|",
		"ZINCRBY z x a => -ERR value is not a valid float|",
		"ZRANK z a => :5|",
		"SET s v => +OK|",
		"ZRANK s a => "+wrongType, "ZCOUNT s 0 1 => "+wrongType, "ZINCRBY s 1 a => "+wrongType,
	)
}

// TestRESPInfo: INFO's sections, in Redis's order whatever the order
// asked, an unknown one selecting nothing; the keyspace line counts keys
// and TTLs; the counters count; RESP3 gets a verbatim string.
func TestRESPInfo(t *testing.T) {
	resetData(t)
	headers := func(reply string) string {
		var h []string
		for _, line := range strings.Split(reply, "\r\n") {
			if strings.HasPrefix(line, "# ") {
				h = append(h, line[2:])
			}
		}
		return strings.Join(h, ",")
	}
	for args, want := range map[string]string{
		"":                    "Server,Clients,Memory,Persistence,Stats,Replication,CPU,Modules,Errorstats,Cluster,Keyspace",
		"everything":          "Server,Clients,Memory,Persistence,Stats,Replication,CPU,Modules,Commandstats,Errorstats,Latencystats,Cluster,Keyspace",
		"keyspace SERVER":     "Server,Keyspace",
		"nosuch stats nosuch": "Stats",
	} {
		if got := headers(respRun(t, append([]string{"INFO"}, strings.Fields(args)...)...)); got != want {
			t.Errorf("INFO %s: sections %s, want %s", args, got, want)
		}
	}
	respSteps(t, "INFO nosuch => $0||", "INFO keyspace => $12|# Keyspace||")
	run("set", "a", "1")
	run("set", "b", "1")
	run("zadd", "z", "1", "m")
	run("pexpire", "b", "100000")
	respSteps(t, "INFO keyspace => $44|# Keyspace|db0:keys=3,expires=1,avg_ttl=0||")

	gStats.commands, gStats.connsReceived, gStats.connsOpen, gStats.expiredKeys = 1234, 7, 3, 5
	stats := respRun(t, "INFO", "stats", "clients")
	for _, want := range []string{"total_commands_processed:1234\r\n", "total_connections_received:7\r\n",
		"connected_clients:3\r\n", "expired_keys:5\r\n", "blocked_clients:0\r\n", "instantaneous_ops_per_sec:"} {
		if !strings.Contains(stats, want) {
			t.Errorf("INFO stats clients has no %q:\n%s", want, stats)
		}
	}
	server := respRun(t, "INFO", "server")
	if !regexp.MustCompile(`\r\nredis_version:\d+\.\d+\.\d+\r\n(.*\r\n)*process_id:\d+\r\n(.*\r\n)*uptime_in_seconds:\d+\r\n`).MatchString(server) {
		t.Errorf("INFO server:\n%s", server)
	}
	if mem := respRun(t, "INFO", "memory"); !regexp.MustCompile(`\r\nused_memory:[1-9]\d*\r\nused_memory_human:[\d.]+[BKMG]\r\n`).MatchString(mem) {
		t.Errorf("INFO memory:\n%s", mem)
	}

	st := newRESPState(nil)
	st.w.ver = resp.RESP3
	st.w.begin(nil)
	respDo(&conn{state: stateReq}, st, [][]byte{[]byte("INFO"), []byte("keyspace")})
	if got := string(st.w.buf); got != "=48\r\ntxt:# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=0\r\n\r\n" {
		t.Errorf("INFO keyspace in RESP3: %q", got)
	}
}

// TestOpsPerSec: instantaneous_ops_per_sec averages the rates of the last
// 16 tenths of a second, a long gap counting as that many idle tenths.
func TestOpsPerSec(t *testing.T) {
	saved := gStats
	t.Cleanup(func() { gStats = saved })
	gStats.opsRates, gStats.opsNext = [kOpsSamples]float64{}, 0
	t0 := serverStart.Add(1e9)
	gStats.opsAt, gStats.opsCount, gStats.commands = t0, 0, 0
	gStats.commands = 1600 // in 1.6 s: 1000 per second, every sample
	if got := opsPerSec(t0.Add(1600 * 1e6)); got != 1000 {
		t.Fatalf("1600 commands in 1.6 s: %d per second", got)
	}
	if got := opsPerSec(t0.Add(1650 * 1e6)); got != 1000 {
		t.Fatalf("less than a tenth later: %d per second, want the samples unchanged", got)
	}
	if got := opsPerSec(t0.Add(2400 * 1e6)); got != 500 {
		t.Fatalf("0.8 s idle after: %d per second, want half the samples idle", got)
	}
	if got := opsPerSec(t0.Add(60 * 1e9)); got != 0 {
		t.Fatalf("a minute idle: %d per second", got)
	}
}

// TestRESPHKeysBounded: HKEYS of a hash too big for what the budget of
// all connections' memory has left is refused before it walks the fields.
func TestRESPHKeysBounded(t *testing.T) {
	resetData(t)
	saveBudget(t)
	maxOutputTotal = 64 << 10
	ent, _ := hashForWrite("h")
	n := maxOutputTotal/6 + 1
	for i := range n {
		ent.obj.hash.Set(0, fmt.Sprint(i), "")
	}
	before := workDone
	got := respRun(t, "HKEYS", "h")
	if got != "-"+errReplyMemory+"\r\n" {
		t.Fatalf("HKEYS of %d fields: %.40q", n, got)
	}
	// The request's and the reply's bytes, and no field.
	if w := workDone - before; w > (len("HKEYSh")+len(got))/kWorkBytes {
		t.Errorf("the refused HKEYS did %d units of work", w)
	}
}
