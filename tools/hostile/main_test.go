package hostile

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/testkit"
	"example.com/byor/testkit/serverproc"
	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// allChapters are the chapters with a server, in book order, from the
// tools' registry of chapters.
var allChapters = chapters.Dirs()

// withFeature returns the directories of the chapters whose servers have
// feature f, in book order.
func withFeature(f chapters.Feature) []string {
	var out []string
	for _, c := range chapters.All() {
		if c.Has(f) {
			out = append(out, c.Dir)
		}
	}
	return out
}

// firstAndNewest returns the directories of the first chapter with feature
// f and of the newest. The costly suites (floods, hundreds of thousands of
// keys) run on these two only, so that a new chapter does not add to their
// time: the chapter that brought f in, and the newest, which carries it
// forward and is the one still changing. The chapters between are no
// longer changed, and were run when each was the newest.
func firstAndNewest(f chapters.Feature) []string {
	all := withFeature(f)
	if len(all) <= 2 {
		return all
	}
	return []string{all[0], all[len(all)-1]}
}

// The chapters the costly suites run on: about chapter 17's limits on
// what clients make the server hold, in the book's protocol; about
// chapter 18's seeded hashes and salted tables; and about the RESP
// listener: its bounds, from chapter 22 on, with the book's commands; from
// chapter 23 on those on the handshake's commands (CONFIG GET); and from
// chapter 24 on the attacks that send Redis's (ZADD of many members,
// DEL of many keys, FLUSHALL, MGET...).
var (
	costlyBook       = firstAndNewest(chapters.OutputBound)
	costlySeeded     = firstAndNewest(chapters.SeededHash)
	costlyRESPBounds = firstAndNewest(chapters.RESPBounds)
	costlyHandshake  = firstAndNewest(chapters.RESPHandshake)
	costlyRESP       = firstAndNewest(chapters.RESPCommands)
)

// fieldChapters are the chapters with hashes whose fields expire, and
// hardChapters those that survive what surrounds them (chapter 15 on).
var (
	fieldChapters = withFeature(chapters.FieldTTL)
	hardChapters  = withFeature(chapters.Hardened)
)

// The chapters the attacks on each later chapter's commands run on: every
// chapter that has them where an attack is cheap, the first and the
// newest where it is costly.
var (
	keys19Chapters   = withFeature(chapters.KeyCommands)     // chapter 29's key commands
	hashes19Chapters = withFeature(chapters.HashCommands)    // chapter 30's hash commands
	costlyBits       = firstAndNewest(chapters.BitsLCS)      // chapter 28's bits and LCS (with 25's SETRANGE)
	hashChapters     = firstAndNewest(chapters.HashCommands) // chapter 30's hashes
	zrangeChapters   = firstAndNewest(chapters.ZRanges)      // chapter 31's ranges and pops
	zalgebraChapters = firstAndNewest(chapters.ZAlgebra)     // chapter 32's set algebra, ZRANDMEMBER, ZSCAN
	aofChapters      = withFeature(chapters.AppendOnly)
	snapshotChapters = withFeature(chapters.Snapshots)  // BGSAVE, the snapshot without fork (ch35 on)
	rewriteChapters  = withFeature(chapters.AOFRewrite) // BGREWRITEAOF (ch36 on)
)

// txChapters are the chapters the costliest transaction attacks run on:
// the newest of those with transactions (chapter 26 brought them).
func txChapters() []string {
	tx := withFeature(chapters.Transactions)
	return tx[len(tx)-1:]
}

func TestMain(m *testing.M) { testkit.MainWithBuilds(m) }

// serverBin builds chapter ch's server once per test run and returns its
// path. Every test here runs servers, so this is where the suite is gated:
// it runs only with the heavy suites (see testkit.Heavy).
func serverBin(t *testing.T, ch string) string {
	t.Helper()
	testkit.Heavy(t)
	bin, _, err := testkit.Builds.Build(filepath.Join("..", "..", ch))
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// startServer runs chapter ch's server on a free loopback port with the
// extra arguments args, and waits until it has logged that it listens.
// If nofile > 0, the server's RLIMIT_NOFILE is then lowered to nofile (as
// `prlimit --nofile` would). The server is stopped when the test ends.
func startServer(t *testing.T, ch string, nofile uint64, args ...string) *serverproc.Process {
	t.Helper()
	p := startAccepting(t, ch, args...)
	if err := p.WaitListening(testkit.Scale(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if nofile > 0 {
		lim := unix.Rlimit{Cur: nofile, Max: nofile}
		if err := unix.Prlimit(p.Pid(), unix.RLIMIT_NOFILE, &lim, nil); err != nil {
			t.Fatalf("prlimit: %v", err)
		}
	}
	return p
}

// startAccepting runs chapter ch's server like startServer but returns as
// soon as it accepts a connection, which may be before it has logged that
// it listens, or set up anything after listen().
func startAccepting(t *testing.T, ch string, args ...string) *serverproc.Process {
	t.Helper()
	argv, addr := serverArgv(t, ch, args...)
	p, err := serverproc.Start(argv, addr, testkit.Scale(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.Running() {
			p.Stop(testkit.Scale(10 * time.Second))
		}
	})
	return p
}

// serverArgv returns the command line that runs chapter ch's server on a
// free loopback port with the extra arguments args, and that port's
// address.
func serverArgv(t *testing.T, ch string, args ...string) (argv []string, addr string) {
	t.Helper()
	bin := serverBin(t, ch)
	addr, err := serverproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	argv = append(append([]string{bin, "-addr", addr}, respFlags(ch)...), noSaveFlags(ch)...)
	return append(argv, args...), addr
}

// noSaveFlags returns -save "" for a server with save rules by default
// (ch35 on), which would save dump.rdb in the test's directory when it is
// stopped; a test that wants a file passes -dir and its own -save after.
func noSaveFlags(ch string) []string {
	if chapters.ByDir(ch).HasFlag(chapters.FlagSave) {
		return []string{"-save", ""}
	}
	return nil
}

// respFlags returns, for a server with a RESP listener (ch23 on), the
// flags that put it on a free port: servers run side by side, and 6380
// may be taken. See respAddr.
func respFlags(ch string) []string {
	if chapters.ByDir(ch).HasFlag(chapters.FlagRESPAddr) {
		return []string{"-resp-addr", "127.0.0.1:0"}
	}
	return nil
}

// logConnsFlag returns -log-conns for a server that logs per-connection
// lines only when asked to (ch17 on), which tests that need the lines ask.
func logConnsFlag(ch string) []string {
	if chapters.ByDir(ch).HasFlag(chapters.FlagLogConns) {
		return []string{"-log-conns"}
	}
	return nil
}

// respAddr returns where a server started by startServer serves RESP,
// which it logs before its listening line (see waitListening).
func respAddr(t *testing.T, p *serverproc.Process) string {
	t.Helper()
	for _, line := range strings.Split(p.Stderr(), "\n") {
		if addr, ok := strings.CutPrefix(line, "listening for RESP on "); ok {
			return strings.TrimSpace(addr)
		}
	}
	t.Fatalf("the server logged no RESP listener:\n%s", p.Stderr())
	return ""
}

// client speaks the protocol of chapters 11 and later.
type client struct {
	t    *testing.T
	conn net.Conn
	buf  []byte
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	return &client{t: t, conn: dialConn(t, addr)}
}

// send writes one request without waiting for its reply.
func (c *client) send(args ...string) {
	c.t.Helper()
	req, err := wire.AppendRequest(nil, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	c.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.conn.Write(req); err != nil {
		c.t.Fatalf("sending %.40q: %v", args, err)
	}
}

// recv reads one reply.
func (c *client) recv() wire.Value {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	body, err := wire.ReadFrame(c.conn, c.buf)
	if err != nil {
		c.t.Fatalf("reading reply: %v", err)
	}
	v, err := wire.DecodeReply(body)
	if err != nil {
		c.t.Fatalf("decoding reply: %v", err)
	}
	return v
}

// do sends one request and returns its reply.
func (c *client) do(args ...string) wire.Value {
	c.t.Helper()
	c.send(args...)
	return c.recv()
}
