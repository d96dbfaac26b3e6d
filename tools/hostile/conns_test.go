package hostile

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Connections are bounded in number (maxclients, Redis's 10,000 by
// default), and what each holds counts in the budget of the connections'
// memory and is taken only while used. Before, 15,000 connections that
// each sent one 15 KB ECHO held 554 MiB against a 64 MiB budget (37 KiB
// taken up front by every connection, outside the budget), and only the
// descriptor limit stopped more. The honest twin sends the same 15,000
// ECHOs over 100 connections. The log reports the server's CPU for each,
// its RSS and a bystander's worst PING; the test asserts the replies (an
// ECHO answered, or Redis's "max number of clients reached" past
// maxclients) and that the RSS the connections add stays within the
// budget and as much again for the garbage collector's headroom.

// TestManyConnections: see above.
func TestManyConnections(t *testing.T) {
	eachChapter(t, costlyRESP, testManyConnections)
}

func testManyConnections(t *testing.T, ch string) {
	const budgetMB, maxClients = 64, 10_000
	n := envInt("HOSTILE_CONNS", 15_000)
	echo := respCmd("ECHO", strings.Repeat("e", 15_000))
	want := fmt.Sprintf("$%d\r\n", 15_000)
	for _, many := range []bool{false, true} {
		p, addr := startRESP(t, ch, "-max-output-mb", fmt.Sprint(budgetMB))
		stop := pingWatch(t, addr)
		rssBefore := procStatus(t, p.Pid(), "VmRSS")
		cpuBefore := cpuTime(t, p.Pid())
		conns := 100 // the twin: the same ECHOs over 100 connections
		if many {
			conns = n
		}
		var (
			mu                        sync.Mutex
			open                      []net.Conn
			answered, refused, failed int
			wg                        sync.WaitGroup
		)
		sem := make(chan struct{}, 100)
		for i := range conns {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				c, err := net.DialTimeout("tcp", addr, time.Minute)
				if err != nil {
					mu.Lock()
					failed++
					mu.Unlock()
					return
				}
				c.SetDeadline(time.Now().Add(5 * time.Minute))
				r := bufio.NewReader(c)
				echoes := 1
				if !many {
					echoes = n/conns + min(1, max(0, n%conns-i))
				}
				ok, no := 0, 0
				for range echoes {
					if _, err := c.Write([]byte(echo)); err != nil {
						no++
						break
					}
					line, err := r.ReadString('\n')
					if line != want {
						if line == "-ERR max number of clients reached\r\n" || err != nil {
							no++
						}
						break
					}
					r.Discard(15_002)
					ok++
				}
				mu.Lock()
				open = append(open, c)
				answered += ok
				refused += no
				mu.Unlock()
			}()
		}
		wg.Wait()
		rss := procStatus(t, p.Pid(), "VmRSS")
		cpu := cpuTime(t, p.Pid()) - cpuBefore
		worst := stop()
		for _, c := range open {
			c.Close()
		}
		t.Logf("%d ECHOs of 15 KB over %d connections: %d answered, %d refused, %d failed to connect; server CPU %v, RSS %d MB (%d MB before); bystander's worst PING %v",
			n, conns, answered, refused, failed, cpu, rss>>20, rssBefore>>20, worst.Round(time.Millisecond))
		if worst < 0 {
			t.Fatalf("%d connections: the bystander's PING failed", conns)
		}
		switch {
		case !many && answered != n:
			t.Fatalf("over 100 connections, %d of %d ECHOs answered", answered, n)
		case many && (answered > maxClients || answered+refused+failed != n || answered < maxClients/2):
			t.Fatalf("over %d connections: %d answered (at most maxclients, %d, may be), %d refused, %d failed", n, answered, maxClients, refused, failed)
		case rss-rssBefore > 2*budgetMB<<20:
			t.Fatalf("over %d connections: the RSS grew by %d MB, past twice the %d MB budget", conns, (rss-rssBefore)>>20, budgetMB)
		}
	}
}
