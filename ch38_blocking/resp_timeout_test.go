package chapter_test

import (
	"bufio"
	"testing"

	"example.com/byor/testkit"
)

// TestRESPTimeout: RESP connections follow Redis's timeout, not the book's
// idle timeout: by default (0) a silent RESP client keeps its connection
// past the book's 1 s here, as redis-cli left alone does on Redis, while a
// silent client of the book's protocol is closed; with -timeout 1 a
// silent RESP client is closed after 1 s. CONFIG GET timeout says which.
func TestRESPTimeout(t *testing.T) {
	t.Parallel()
	never := testkit.StartTestServer(t, "-idle-timeout", "1s")
	oneSec := testkit.StartTestServer(t, "-idle-timeout", "1s", "-timeout", "1")
	kept, closed := respDial(t, never), respDial(t, oneSec)
	book := dialRaw(t, never.Addr)
	keptR := bufio.NewReader(kept)
	respExchange(t, kept, keptR, "CONFIG GET timeout\r\n", "*2\r\n$7\r\ntimeout\r\n$1\r\n0\r\n")
	respExchange(t, closed, bufio.NewReader(closed), "CONFIG GET timeout\r\n", "*2\r\n$7\r\ntimeout\r\n$1\r\n1\r\n")

	// The reads return when each server closes its silent client. kept
	// has been silent since before closed's last request, so by the time
	// closed is gone after its second, kept has been idle longer.
	expectClosed(t, book)
	expectClosed(t, closed)
	respExchange(t, kept, keptR, "PING\r\n", "+PONG\r\n")
}
