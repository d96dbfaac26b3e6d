package server

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBlockingPops: BZPOPMIN, BZPOPMAX and BZMPOP pop at once from the
// first key with members, with Redis's errors and replies; with every key
// empty they answer a null array inside a transaction (outside one they
// wait: blocking_test.go).
func TestBlockingPops(t *testing.T) {
	resetTx(t)
	a := newTxClient(t)
	a.do("zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d")
	a.do("set", "s", "x")
	var got []string
	for _, cmd := range [][]string{
		{"bzpopmin", "none", "z", "0"},
		{"bzpopmax", "z", "0.5"},
		{"bzpopmin", "s", "z", "0"},
		{"bzpopmin", "z", "-1"},
		{"bzpopmin", "z", "-0.0001"}, // rounded up: not negative
		{"bzpopmin", "z", "inf"},     // past a long long: negative, as in C
		{"bzpopmin", "z", "x"},
		{"bzmpop", "0", "2", "none", "z", "max", "count", "5"},
		{"bzmpop", "0", "0", "z", "min"},
		{"exists", "z"},
		{"multi"}, {"bzpopmin", "z", "0"}, {"bzmpop", "0", "1", "z", "max"}, {"exec"},
	} {
		got = append(got, a.do(cmd...))
	}
	want := []string{
		"*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n",
		"*3\r\n$1\r\nz\r\n$1\r\nd\r\n$1\r\n4\r\n",
		"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
		"-ERR timeout is negative\r\n",
		"*3\r\n$1\r\nz\r\n$1\r\nb\r\n$1\r\n2\r\n",
		"-ERR timeout is negative\r\n",
		"-ERR timeout is not a float or out of range\r\n",
		"*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n",
		"-ERR numkeys should be greater than 0\r\n",
		":0\r\n",
		"+OK\r\n", "+QUEUED\r\n", "+QUEUED\r\n", "*2\r\n*-1\r\n*-1\r\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}
