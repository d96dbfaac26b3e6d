package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestExecReplyLinear: EXEC's reply, made of many commands' replies, is
// built in time linear in its size: the bytes copied as its buffer grows
// stay within twice the reply, where raising each element's room a little
// at a time copied the whole reply again for every element (a transaction
// of 10,000 COMMANDs froze the loop for seconds). 5,000 ZRANGEs of 100
// members make a reply of 5 MB, within what a transaction may do.
func TestExecReplyLinear(t *testing.T) {
	resetTx(t)
	maxOutputTotal = 1 << 30
	for i := range 100 {
		run("zadd", "z", fmt.Sprint(i), fmt.Sprintf("m%02d", i))
	}
	for _, tt := range []struct {
		cmd []string
		n   int
	}{
		{[]string{"COMMAND"}, 1000},
		{[]string{"ZRANGE", "z", "0", "99"}, 5_000},
	} {
		a := newTxClient(t)
		a.expect(okReply, "MULTI")
		for range tt.n {
			a.expect(queued, tt.cmd...)
		}
		before := respReplyCopied
		got := a.do("EXEC")
		copied := respReplyCopied - before
		if !strings.HasPrefix(got, fmt.Sprintf("*%d\r\n", tt.n)) || strings.Contains(got, errExecTooBig) || len(got) < 500*tt.n {
			t.Fatalf("EXEC of %d %s: %.60q", tt.n, tt.cmd[0], got)
		}
		if copied > 2*len(got) {
			t.Errorf("EXEC of %d %s: a reply of %d bytes copied %d bytes as it grew, more than twice its size", tt.n, tt.cmd[0], len(got), copied)
		}
		t.Logf("EXEC of %d %s: a reply of %d bytes, %d copied as it grew", tt.n, tt.cmd[0], len(got), copied)
	}
}
