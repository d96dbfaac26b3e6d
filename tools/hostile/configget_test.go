package hostile

import (
	"strings"
	"testing"
	"time"
)

// TestConfigGetPatternBounded: CONFIG GET "*[<512 KiB of b>]z" walks its
// set once for every byte of every parameter's name the * tries: about
// 80 ms each when the match was unbounded, and 50 of them queued in one
// transaction held the loop for 2 to 3 s at EXEC. Its honest twin is the
// same requests with a plain name of the same length, looked up without
// matching. Both are sent in one write (MULTI, 50 CONFIG GETs, EXEC; then
// 50 pipelined CONFIG GETs) while a bystander PINGs; the log reports the
// server's CPU and the bystander's worst PING for each, and the test
// asserts that every request is answered, in order: MULTI's OK first,
// each CONFIG GET queued, refused or answered (with no parameter: none
// matches), EXEC's reply last.
func TestConfigGetPatternBounded(t *testing.T) {
	eachChapter(t, costlyRESP, func(t *testing.T, ch string) {
		const n = 50
		costly := "*[" + strings.Repeat("b", 512<<10-4) + "]z"
		plain := strings.Repeat("x", len(costly))
		p, addr := startRESP(t, ch)
		for _, kind := range []struct{ name, pattern string }{
			{"plain name", plain},
			{"costly pattern", costly},
		} {
			var reqs strings.Builder
			reqs.WriteString(respCmd("MULTI"))
			for range n {
				reqs.WriteString(respCmd("CONFIG", "GET", kind.pattern))
			}
			reqs.WriteString(respCmd("EXEC"))
			for range n {
				reqs.WriteString(respCmd("CONFIG", "GET", kind.pattern))
			}
			a := dialRESP(t, addr)
			var queued, refused, answered int
			var exec string
			f := measure(t, p.Pid(), addr, kind.name, func() {
				a.conn.SetDeadline(time.Now().Add(5 * time.Minute))
				go a.conn.Write([]byte(reqs.String()))
				if got := skipReply(t, a.r); got != "+OK" {
					t.Fatalf("%s: MULTI answered %q", kind.name, got)
				}
				for i := range n {
					switch got := skipReply(t, a.r); {
					case got == "+QUEUED":
						queued++
					case got[0] == '-':
						refused++
					default:
						t.Fatalf("%s: CONFIG GET number %d in MULTI answered %.60q", kind.name, i+1, got)
					}
				}
				exec = skipReply(t, a.r)
				if exec[0] != '*' && !strings.HasPrefix(exec, "-EXECABORT") {
					t.Fatalf("%s: EXEC answered %.60q", kind.name, exec)
				}
				for i := range n {
					got := skipReply(t, a.r)
					if got != "*0" && got != "%0" && got[0] != '-' {
						t.Fatalf("%s: pipelined CONFIG GET number %d answered %.60q", kind.name, i+1, got)
					}
					if got[0] != '-' {
						answered++
					}
				}
			})
			t.Logf("%s: %d CONFIG GETs queued, %d refused, EXEC %.30q; %d of %d pipelined answered; in %v, server CPU %v; bystander's worst PING %v",
				kind.name, queued, refused, exec, answered, n, f.took.Round(time.Millisecond), f.cpu, f.worst.Round(time.Millisecond))
			if kind.pattern == plain && answered != n {
				t.Errorf("%s: %d of %d pipelined CONFIG GETs answered", kind.name, answered, n)
			}
		}
	})
}
