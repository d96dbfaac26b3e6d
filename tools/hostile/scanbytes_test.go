package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestScanLongKeysBounded: a whole SCAN of 200 keys of 511 KiB, beside
// one of 200 short keys. Each key SCAN looks at is hashed to find its
// place, and a reply over its bound used to be walked again at half the
// count: 144 ms of CPU per SCAN call with a large COUNT, the loop held
// all along. Each is scanned with COUNT 10 and COUNT 1000. Now the
// walk counts the keys' bytes in its work, ends once that passes its
// budget, and never goes back. The log reports the server's CPU time for
// the whole scan, the calls it took, the slowest call and the bystander's
// worst PING; the verdict is that each key comes back exactly once.
func TestScanLongKeysBounded(t *testing.T) {
	ch := "ch18_scan_multi" // SCAN's chapter
	const n = 200
	// Keys just short of 512 KiB, so that one fits in a reply. For
	// measuring by hand: HOSTILE_SCAN_KEY_BYTES=262144.
	for _, size := range []int{16, envInt("HOSTILE_SCAN_KEY_BYTES", 511<<10)} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			p, addr, c := startWithClient(t, ch)
			pad := strings.Repeat("k", size-8)
			want := map[string]int{}
			for i := range n {
				k := fmt.Sprintf("%s%08d", pad, i)
				if got := c.do(time.Minute, "SET", k, "v"); got != "+OK" {
					t.Fatalf("SET: %.60q", got)
				}
				want[k] = 0
			}
			for _, count := range []int{10, 1000} {
				stop := pingWatch(t, addr)
				time.Sleep(20 * time.Millisecond)
				cpu0, calls, slowest := cpuTime(t, p.Pid()), 0, time.Duration(0)
				for cursor := "0"; ; calls++ {
					began := time.Now()
					if got := c.do(time.Minute, "SCAN", cursor, "COUNT", fmt.Sprint(count)); got != "*2" {
						t.Fatalf("SCAN: %.60q", got)
					}
					c.line()
					cursor = c.line()
					for _, k := range readBulks(t, c.r, c.line()) {
						if _, ok := want[k]; !ok {
							t.Fatalf("SCAN returned a key never set: %.40q", k)
						}
						want[k]++
					}
					slowest = max(slowest, time.Since(began))
					if cursor == "0" {
						break
					}
					if calls > 100*n {
						t.Fatal("the scan does not end")
					}
				}
				cpu := cpuTime(t, p.Pid()) - cpu0
				worst := stop()
				if worst < 0 {
					t.Fatal("the bystander's PING failed")
				}
				t.Logf("%d keys of %d bytes: a whole SCAN with COUNT %d in %d calls, server CPU %v, the slowest call %v; bystander's worst PING %v",
					n, size, count, calls+1, cpu, slowest.Round(time.Millisecond), worst.Round(time.Millisecond))
				for k, got := range want {
					if got != 1 {
						t.Fatalf("SCAN returned %.20q... %d times", k, got)
					}
					want[k] = 0
				}
			}
		})
	}
}
