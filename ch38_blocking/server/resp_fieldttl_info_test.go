package server

import (
	"strings"
	"testing"
)

// TestRESPFieldTTLInfo: INFO's keyspace line counts the hashes that have a
// field with a TTL, under Redis 7.4's name and Valkey 9.0's, and only
// while there are some; its stats count the fields removed by their TTL.
// CONFIG RESETSTAT zeroes the totals and leaves what is true now.
func TestRESPFieldTTLInfo(t *testing.T) {
	resetData(t)
	respSteps(t, "CONFIG RESETSTAT => +OK|")
	has := func(section, want string) {
		t.Helper()
		if got := respRun(t, "INFO", section); !strings.Contains(got, "\r\n"+want+"\r\n") {
			t.Errorf("INFO %s has no %q:\n%s", section, want, got)
		}
	}
	run("hset", "h", "a", "1", "b", "2", "c", "3")
	run("hset", "g", "a", "1")
	has("keyspace", "db0:keys=2,expires=0,avg_ttl=0")
	run("hpexpire", "h", "100000", "FIELDS", "2", "a", "b")
	has("keyspace", "db0:keys=2,expires=0,avg_ttl=0,subexpiry=1,keys_with_volatile_items=1")
	run("hpexpire", "g", "100000", "FIELDS", "1", "a")
	has("keyspace", "db0:keys=2,expires=0,avg_ttl=0,subexpiry=2,keys_with_volatile_items=2")

	// A time not in the future removes a field as its TTL would.
	run("hpexpire", "h", "0", "FIELDS", "1", "a")
	has("stats", "expired_fields:1")
	has("stats", "expired_subkeys:1")
	has("keyspace", "db0:keys=2,expires=0,avg_ttl=0,subexpiry=2,keys_with_volatile_items=2")
	run("hpersist", "h", "FIELDS", "1", "b")
	has("keyspace", "db0:keys=2,expires=0,avg_ttl=0,subexpiry=1,keys_with_volatile_items=1")
	run("hsetex", "g", "PX", "0", "FIELDS", "1", "a", "2")
	has("stats", "expired_fields:2")
	has("keyspace", "db0:keys=1,expires=0,avg_ttl=0")

	gStats.commands, gStats.connsReceived, gStats.expiredKeys, connsRefused = 10, 7, 5, 2
	respSteps(t, "CONFIG RESETSTAT => +OK|")
	for _, want := range []string{"total_commands_processed:0", "total_connections_received:0",
		"expired_keys:0", "rejected_connections:0", "expired_fields:0", "expired_subkeys:0"} {
		has("stats", want)
	}
	has("keyspace", "db0:keys=1,expires=0,avg_ttl=0")
}
