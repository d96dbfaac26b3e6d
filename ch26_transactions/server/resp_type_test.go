package server

import (
	"strings"
	"testing"
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
