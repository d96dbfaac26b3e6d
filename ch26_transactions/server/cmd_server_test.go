package server

import (
	"regexp"
	"strings"
	"testing"

	"example.com/byor/ch26_transactions/resp"
)

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
