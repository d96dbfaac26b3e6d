package conform

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit"
	"example.com/byor/testkit/serverproc"
	"example.com/byor/tools/internal/chapters"
)

func TestMain(m *testing.M) {
	if fakeMain() || respFakeMain() {
		return
	}
	testkit.MainWithBuilds(m)
}

// build returns the paths of stage id's chapter's server and client,
// built once per run. Every chapter built and run: a heavy suite.
func build(t *testing.T, id string) (server, client string) {
	t.Helper()
	testkit.Heavy(t)
	server, client, err := testkit.Builds.Build(filepath.Join(FindRoot(), StageByID(id).Dir))
	if err != nil {
		t.Fatal(err)
	}
	return server, client
}

// server returns the -server command for chapter id's own server.
func server(t *testing.T, id string) []string {
	t.Helper()
	srv, _ := build(t, id)
	if chapters.ByID(id).HasFlag(chapters.FlagSave) {
		// Not a dump.rdb in this directory each time the runner stops it.
		return []string{srv, "-addr", "{addr}", "-save", ""}
	}
	return []string{srv, "-addr", "{addr}"}
}

// family returns the stages sharing stage id's wire format, up to id.
func family(id string) []string { return Family(id) }

// run runs stages against cmd and returns the summary and the report.
func run(t *testing.T, cfg Config, ids ...string) (*Summary, string) {
	t.Helper()
	var out bytes.Buffer
	cfg.Out = &out
	sum, err := Run(cfg, ids, false)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return sum, out.String()
}

// limit keeps the chapters' runs from all competing for the CPU at once.
var limit = make(chan struct{}, 3)

// TestChapters: every chapter's server passes its own stage, and the
// earlier stages whose wire format it shares. (Only ch12's stage has the
// slow idle-timeout check, so each chapter from ch12 on runs it once.)
// The RESP listener (chapter 21 on) takes the RESP stages, its book listener the
// stages of chapter 20's format.
func TestChapters(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every chapter's server")
	}
	for _, st := range Stages() {
		t.Run(st.ID, func(t *testing.T) {
			t.Parallel()
			cmd := server(t, st.ID)
			limit <- struct{}{}
			defer func() { <-limit }()
			ch := chapters.ByID(st.ID)
			fam := family(st.ID)
			var sum *Summary
			var out string
			if st.Proto == chapters.RESP {
				// The RESP stages up to its own: a later chapter keeps
				// passing the earlier chapters' checks.
				resp := []string{cmd[0], "-addr", "127.0.0.1:0", "-resp-addr", "{addr}"}
				if st.Has(chapters.AppendOnly) {
					// A log of its own for each server the runner starts
					// (a fresh key space), which the same server started
					// again on the same port reads (ch33's check).
					resp = append(resp, "-appendonly", "yes", "-dir", t.TempDir(), "-appendfilename", "conform-{port}.aof")
				}
				sum, out = run(t, Config{Server: resp}, fam...)
				// The book's listener, without a RESP one to share ports.
				cmd = append(cmd, "-resp-addr", "")
				for i := len(Stages()) - 1; i >= 0; i-- {
					if b := Stages()[i]; b.Num < st.Num && b.Proto == ch.Protocol() {
						fam = family(b.ID)
						break
					}
				}
			} else {
				sum, out = run(t, Config{Server: cmd}, st.ID)
				fam = fam[:len(fam)-1]
			}
			if len(fam) > 0 {
				s2, o2 := run(t, Config{Server: cmd}, fam...)
				sum.Results = append(sum.Results, s2.Results...)
				out += o2
			}
			if !ch.Has(chapters.KeysOrder) {
				// ch18's key table is not the book's: the order of keys,
				// which the earlier stages check, is the one difference.
				sum.Results = slices.DeleteFunc(sum.Results, func(r Result) bool {
					return r.Outcome == Failed && strings.Contains(r.Check, "order the book's hashtable fixes")
				})
			}
			if sum.Count(OK) < 1 || sum.Count(Failed) > 0 || sum.Count(Warned) > 0 || sum.Count(Unverified) > 0 {
				t.Errorf("%s's server on stages %s and %v:\n%s", st.Dir, st.ID, fam, out)
			}
			for _, r := range sum.Results {
				if r.Outcome == Skipped && !strings.HasPrefix(r.Check, "not checked") {
					t.Errorf("%s %s skipped: %s", r.Stage, r.Check, r.Detail)
				}
			}
		})
	}
}

// TestRedis: a real redis-server passes the RESP stages. CI installs one.
func TestRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("runs redis-server")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed (Debian: apt-get install redis-server)")
	}
	for _, c := range []struct {
		id      string
		ok      int
		skipped int // the stage's "not checked", and ch26's hash field TTLs, which Redis 7.0 has not
	}{{"ch21", 6, 1}, {"ch22", 1, 0}, {"ch23", 2, 1}, {"ch24", 8, 1}, {"ch25", 4, 1}, {"ch26", 5, 2}, {"ch27", 8, 1}, {"ch28", 3, 1}, {"ch29", 5, 1}, {"ch30", 6, 1}, {"ch31", 4, 1}, {"ch32", 2, 1}, {"ch33", 1, 1}, {"ch34", 1, 1}, {"ch35", 1, 0}, {"ch36", 1, 1}, {"ch37", 9, 1}, {"ch38", 11, 1}} {
		t.Run(c.id, func(t *testing.T) {
			t.Parallel()
			// Loopback only, as every server a test starts here.
			cmd := []string{"redis-server", "--port", "{port}", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}
			if c.id == "ch33" || c.id == "ch36" {
				// always: under everysec Redis may put off a write while
				// a background fsync runs, and reply before it, so a kill
				// -9 can lose an acknowledged write, which these stages
				// check is never lost.
				cmd = append(cmd, "--appendonly", "yes", "--appendfsync", "always", "--appenddirname", "conform-{port}")
			}
			sum, out := run(t, Config{Server: cmd}, c.id)
			if sum.Failed || sum.Count(OK) < c.ok || sum.Count(Skipped) != c.skipped {
				t.Errorf("redis-server on the %s stage:\n%s", c.id, out)
			}
		})
	}
}

// TestUpTo: -upto runs the stages of the target's wire format, and says
// which earlier ones it leaves out.
func TestUpTo(t *testing.T) {
	for _, c := range []struct {
		id, ids, skipped string
	}{
		{"ch03", "ch03", ""},
		{"ch04", "ch04", "ch03"},
		{"ch06", "ch06", "ch03 ch04"},
		{"ch08", "ch07 ch08", "ch03 ch04 ch06"},
		{"ch10", "ch09 ch10", "ch03 ch04 ch06 ch07 ch08"},
		{"ch14", "ch11 ch12 ch13 ch14", "ch03 ch04 ch06 ch07 ch08 ch09 ch10"},
		{"ch17", "ch11 ch12 ch13 ch14 ch15 ch16 ch17", "ch03 ch04 ch06 ch07 ch08 ch09 ch10"},
		{"ch18", "ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18", "ch03 ch04 ch06 ch07 ch08 ch09 ch10"},
		{"ch19", "ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19", "ch03 ch04 ch06 ch07 ch08 ch09 ch10"},
		{"ch20", "ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20", "ch03 ch04 ch06 ch07 ch08 ch09 ch10"},
		{"ch21", "ch21", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch22", "ch21 ch22", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch23", "ch21 ch22 ch23", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch24", "ch21 ch22 ch23 ch24", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch25", "ch21 ch22 ch23 ch24 ch25", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch26", "ch21 ch22 ch23 ch24 ch25 ch26", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch27", "ch21 ch22 ch23 ch24 ch25 ch26 ch27", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch28", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch29", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch30", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch31", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30 ch31", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch32", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30 ch31 ch32", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch33", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30 ch31 ch32 ch33", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch34", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30 ch31 ch32 ch33 ch34", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch35", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30 ch31 ch32 ch33 ch34 ch35", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch36", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30 ch31 ch32 ch33 ch34 ch35 ch36", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch37", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30 ch31 ch32 ch33 ch34 ch35 ch36 ch37", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
		{"ch38", "ch21 ch22 ch23 ch24 ch25 ch26 ch27 ch28 ch29 ch30 ch31 ch32 ch33 ch34 ch35 ch36 ch37 ch38", "ch03 ch04 ch06 ch07 ch08 ch09 ch10 ch11 ch12 ch13 ch14 ch15 ch16 ch17 ch18 ch19 ch20"},
	} {
		p, err := UpTo(c.id)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.IDs, " "); got != c.ids {
			t.Errorf("UpTo(%s) runs %s, want %s", c.id, got, c.ids)
		}
		if got := strings.Join(p.Skipped, " "); got != c.skipped || (got != "") != (p.Why != "") {
			t.Errorf("UpTo(%s) skips %q (%q), want %q", c.id, got, p.Why, c.skipped)
		}
	}
	if _, err := UpTo("ch99"); err == nil {
		t.Errorf("UpTo(ch99) did not fail")
	}
}

// TestLookalike: a stage failing against another chapter's server names
// the chapters the server looks like.
func TestLookalike(t *testing.T) {
	if testing.Short() {
		t.Skip("runs servers")
	}
	for _, c := range []struct{ server, stage, want string }{
		{"ch04", "ch03", "like a ch04 server"},
		{"ch07", "ch03", "like a ch07-ch08 server"},
		{"ch09", "ch11", "like a ch09-ch10 server"},
		{"ch14", "ch09", "like a ch11-ch20 server"},
		{"ch14", "ch23", "like a ch11-ch20 server"},
		{"ch06", "ch04", "like a ch06 server"},
		{"ch23", "ch24", "like a ch23 server (Redis's protocol, RESP (ch21 on)), not a ch24 one: it does not know DBSIZE"},
		{"ch24", "ch25", "like a ch24 server (Redis's protocol, RESP (ch21 on)), not a ch25 one: it does not know SCAN"},
		{"ch25", "ch26", "like a ch25 server (Redis's protocol, RESP (ch21 on)), not a ch26 one: it does not know UNWATCH"},
		{"ch37", "ch38", "like a ch37 server (Redis's protocol, RESP (ch21 on)), not a ch38 one: it does not know LMPOP"},
	} {
		t.Run(c.server+" on "+c.stage, func(t *testing.T) {
			t.Parallel()
			cmd := server(t, c.server)
			if StageByID(c.stage).Proto == chapters.RESP && chapters.ByID(c.server).Has(chapters.RESPListener) {
				// The RESP listener, on the stage's address.
				cmd = []string{cmd[0], "-addr", "127.0.0.1:0", "-resp-addr", "{addr}"}
				if chapters.ByID(c.server).HasFlag(chapters.FlagSave) {
					// A stage that fails leaves its keys behind: no dump.rdb
					// of them in this directory when the runner stops it,
					// for the next server started here to load.
					cmd = append(cmd, "-save", "")
				}
			}
			sum, out := run(t, Config{Server: cmd, MaxCheckTime: 10 * time.Second, SkipSlow: true}, c.stage)
			if !sum.Failed || !strings.Contains(sum.Hint, c.want) || !strings.Contains(out, "hint: this server answers "+c.want) {
				t.Errorf("hint %q, want one saying %q:\n%s", sum.Hint, c.want, out)
			}
		})
	}
}

// expectFailure runs stage id (checks matching match) and wants check
// failed with a detail containing want.
func expectFailure(t *testing.T, cfg Config, id, match, want string) *Summary {
	t.Helper()
	cfg.Match = match
	sum, out := run(t, cfg, id)
	for _, r := range sum.Results {
		if r.Outcome == Failed && strings.Contains(r.Check+"\n"+r.Detail, want) {
			if !sum.Failed {
				t.Errorf("summary not marked failed")
			}
			return sum
		}
	}
	t.Errorf("stage %s, checks %q: no failure saying %q:\n%s", id, match, want, out)
	return sum
}

func fakeServer(mode string) []string {
	return []string{os.Args[0], "-fake", mode, "-addr", "{addr}"}
}

// TestFaults: servers with one deliberate fault fail with the message
// that points at it.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs servers")
	}
	t.Run("ch09 tags on ch11", func(t *testing.T) {
		t.Parallel()
		expectFailure(t, Config{Server: server(t, "ch09")}, "ch11", "keys lists", "received: undecodable")
	})
	t.Run("ch07 status replies on ch09", func(t *testing.T) {
		t.Parallel()
		expectFailure(t, Config{Server: server(t, "ch07")}, "ch09", "set, get, del", "expected: (int) 0")
	})
	t.Run("wrong error code", func(t *testing.T) {
		testkit.Heavy(t) // waits out deadlines by design: seconds each
		t.Parallel()
		expectFailure(t, Config{Server: fakeServer("wrongcode")}, "ch11", "unknown command", "received: (err) 2 Unknown cmd")
	})
	t.Run("no idle timeout", func(t *testing.T) {
		testkit.Heavy(t) // waits out deadlines by design: seconds each
		t.Parallel()
		expectFailure(t, Config{Server: fakeServer("notimeout"), MaxCheckTime: 15 * time.Second}, "ch12", "idle", "stayed open")
	})
	t.Run("hang", func(t *testing.T) {
		testkit.Heavy(t) // waits out deadlines by design: seconds each
		t.Parallel()
		expectFailure(t, Config{Server: fakeServer("hang"), MaxCheckTime: 3 * time.Second}, "ch09", "keys lists", "no reply before the check's deadline")
	})
	t.Run("a closed connection shows the request and what arrived", func(t *testing.T) {
		t.Parallel()
		sum := expectFailure(t, Config{Server: fakeServer("hangup"), Verbose: true}, "ch09", "keys lists", "the server closed the connection")
		for _, r := range sum.Results {
			if r.Outcome == Failed {
				for _, want := range []string{"request:  keys\n", "received: 3 bytes \"\\t\\x00\\x00\"", "request hex:  0c00000001000000040000006b657973", "received hex: 090000"} {
					if !strings.Contains(r.Detail, want) {
						t.Errorf("report lacks %q:\n%s", want, r.Detail)
					}
				}
			}
		}
	})
	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		expectFailure(t, Config{Server: fakeServer("crash"), MaxCheckTime: 60 * time.Second}, "ch09", "keys lists", "the server process exited")
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("a dead server was noticed only after %v", d)
		}
	})
	t.Run("the book's pipelining hang is a warning", func(t *testing.T) {
		testkit.Heavy(t) // waits out deadlines by design: seconds each
		t.Parallel()
		expectWarning(t, Config{Server: fakeServer("bookhang"), Match: "pipelining: 2000"}, "ch09", "pipelining hang", -1)
	})
	t.Run("the book's pexpire overflow is a warning", func(t *testing.T) {
		t.Parallel()
		expectWarning(t, Config{Server: fakeServer("book"), Match: "session ttl"}, "ch14", "pexpire overflow", 0)
	})
	t.Run("a command without {addr} is waited for on Addr", func(t *testing.T) {
		t.Parallel()
		addr, err := serverproc.FreeAddr()
		if err != nil {
			t.Fatal(err)
		}
		cmd := server(t, "ch07")
		sum, out := run(t, Config{Server: []string{cmd[0], "-addr", addr}, Addr: addr, Match: "set, get, del"}, "ch07")
		if sum.Failed || sum.Count(OK) != 1 {
			t.Errorf("server started on a fixed -addr:\n%s", out)
		}
	})
	t.Run("plain addr skips fresh checks", func(t *testing.T) {
		t.Parallel()
		cmd := server(t, "ch09")
		// Start the server ourselves and point the runner at it.
		p, addr := startPlain(t, cmd)
		defer p.Process.Kill()
		sum, out := run(t, Config{Addr: addr}, "ch09")
		skipped := false
		for _, r := range sum.Results {
			if r.Outcome == Failed || r.Outcome == Warned {
				t.Errorf("against a running ch09 server: %s", out)
				break
			}
			if strings.HasPrefix(r.Check, "keys lists") && r.Outcome == Skipped && strings.Contains(r.Detail, "empty key space") {
				skipped = true
			}
		}
		if !skipped {
			t.Errorf("keys order not skipped without a fresh server:\n%s", out)
		}
	})
}

// expectWarning runs stage with cfg, which matches one check: without
// -strict it must warn once, mentioning what, and not fail, with ok checks
// passing (any number if ok is -1); with -strict the warning must fail.
func expectWarning(t *testing.T, cfg Config, stage, what string, ok int) {
	t.Helper()
	sum, out := run(t, cfg, stage)
	if sum.Failed || sum.Count(Warned) != 1 || (ok >= 0 && sum.Count(OK) != ok) || !strings.Contains(out, what) {
		t.Errorf("without -strict, want one warning about %s and no failure:\n%s", what, out)
	}
	cfg.Strict = true
	if sum, out := run(t, cfg, stage); !sum.Failed || !strings.Contains(out, "WARNING") {
		t.Errorf("with -strict, want the warning to fail:\n%s", out)
	}
}

// startPlain starts cmd on a free address, outside the runner.
func startPlain(t *testing.T, cmd []string) (*exec.Cmd, string) {
	t.Helper()
	l, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	argv := make([]string, len(cmd))
	for i, w := range cmd {
		argv[i] = strings.ReplaceAll(w, "{addr}", l)
	}
	c := exec.Command(argv[0], argv[1:]...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		e := &Env{Addr: l, stage: StageByID("ch09"), deadline: time.Now().Add(time.Second)}
		if conn, err := e.Dial(); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatalf("server on %s did not start", l)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c, l
}

// TestNewerEdition: a fake server behaving like the newer edition passes
// the newer profile, and a 2023 server does not.
func TestNewerEdition(t *testing.T) {
	if testing.Short() {
		t.Skip("runs servers")
	}
	t.Run("newer fake passes", func(t *testing.T) {
		testkit.Heavy(t) // waits out deadlines by design: seconds each
		t.Parallel()
		sum, out := run(t, Config{Server: fakeServer("newer"), Edition: EditionNewer, SkipSlow: true}, "ch09", "ch11")
		if sum.Failed || sum.Count(Unverified) > 0 || sum.Count(OK) < 10 {
			t.Errorf("newer fake on the newer profile:\n%s", out)
		}
	})
	t.Run("2023 server fails it", func(t *testing.T) {
		t.Parallel()
		sum := expectFailure(t, Config{Server: server(t, "ch11"), Edition: EditionNewer}, "ch11", "", "a request above 4096 bytes is served")
		if sum.Count(Unverified) == 0 {
			t.Errorf("no unverified results for the 2023 server's messages")
		}
	})
}

func freeAddr() (string, error) { return serverproc.FreeAddr() }

// TestClientRefusesOversized: from ch07 on, each chapter's client checks
// the message limit before sending anything. (Not a server check, so it
// lives here rather than in the runner.)
func TestClientRefusesOversized(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every chapter")
	}
	testkit.Heavy(t)
	// A listener that accepts and never answers: the client must refuse
	// before it sends anything.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for _, st := range Stages() {
		if !st.Proto.Commands() {
			continue
		}
		t.Run(st.ID, func(t *testing.T) {
			_, cli := build(t, st.ID)
			cmd := exec.Command(cli, "-addr", l.Addr().String(), "set", "k", strings.Repeat("x", 5000))
			cmd.WaitDelay = time.Second
			done := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
			out, err := cmd.CombinedOutput()
			done.Stop()
			if err == nil || !strings.Contains(string(out), "too long") {
				t.Errorf("%s client with a 5000-byte value: %v, output %q; want a too long error", st.Dir, err, out)
			}
		})
	}
}
