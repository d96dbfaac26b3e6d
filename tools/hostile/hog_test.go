package hostile

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// One client may not take the whole budget of the connections' memory and
// keep it. A hog queues a big transaction (SETs of 1 MB values inside
// MULTI) until the budget refuses it more, and keeps its connection;
// meanwhile another client sends requests over 16 KiB (a read buffer's
// usual size; here 3 MB, more than the budget has left beside the hog),
// WATCH and CLIENT SETNAME. Before, every one of those was
// refused, and a request over 16 KiB closed its own connection, for as
// long as the hog stayed; as Redis's maxmemory-clients does, the server
// now closes the connection that holds the most: the hog. The honest twin
// runs the same other clients with no hog. The log reports the server's
// CPU for each and a bystander's worst PING; the test asserts the replies
// and that the hog, and only it, was closed.

// TestHogClosed: see above.
func TestHogClosed(t *testing.T) {
	eachChapter(t, txChapters(), testHogClosed)
}

func testHogClosed(t *testing.T, ch string) {
	const budgetMB = 64
	for _, withHog := range []bool{false, true} {
		p, addr := startRESP(t, ch, "-max-output-mb", fmt.Sprint(budgetMB))
		var hog *respConn
		if withHog {
			hog = dialRESP(t, addr)
			if got := hog.do(time.Minute, "MULTI"); got != "+OK" {
				t.Fatalf("MULTI: %q", got)
			}
			val := strings.Repeat("h", 1<<20)
			queued := 0
			for ; queued < 2*budgetMB; queued++ {
				got := hog.do(time.Minute, "SET", fmt.Sprint("hog", queued), val)
				if got != "+QUEUED" {
					if !strings.Contains(got, "memory for clients is full") {
						t.Fatalf("the hog's SET %d: %q", queued, got)
					}
					break
				}
			}
			if queued < budgetMB/2 {
				t.Fatalf("the hog queued only %d MB of a %d MB budget", queued, budgetMB)
			}
			if got := hog.do(time.Minute, "PING"); got != "+QUEUED" {
				t.Fatalf("the hog's PING, queued: %q", got)
			}
			t.Logf("the hog holds %d MB queued of the %d MB budget", queued, budgetMB)
		}
		f := measure(t, p.Pid(), addr, fmt.Sprintf("with hog %v", withHog), func() {
			others := dialRESP(t, addr)
			// 3 MB: more than the budget has left beside the hog.
			big := strings.Repeat("o", 3<<20)
			for i := range 5 {
				key := fmt.Sprint("other", i)
				if got := others.do(time.Minute, "SET", key, big); got != "+OK" {
					t.Fatalf("with hog %v: another client's SET of 3 MB: %q", withHog, got)
				}
				if got := others.do(time.Minute, "GET", key); got != fmt.Sprintf("$%d", len(big)) {
					t.Fatalf("with hog %v: GET of 3 MB: %q", withHog, got)
				}
				others.r.Discard(len(big) + 2)
			}
			if got := others.do(time.Minute, "WATCH", "other0"); got != "+OK" {
				t.Fatalf("with hog %v: WATCH: %q", withHog, got)
			}
			if got := others.do(time.Minute, "CLIENT", "SETNAME", strings.Repeat("n", 20_000)); got != "+OK" {
				t.Fatalf("with hog %v: CLIENT SETNAME: %q", withHog, got)
			}
		})
		t.Logf("with hog %v: 5 SETs and GETs of 3 MB, a WATCH, a SETNAME of 20 KB: server CPU %v; bystander's worst PING %v",
			withHog, f.cpu, f.worst.Round(time.Millisecond))
		if hog != nil {
			hog.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := hog.r.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("the hog's connection is still open (read %d, %v)", n, err)
			}
		}
	}
}
