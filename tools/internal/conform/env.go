package conform

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// Env is what a check talks to the server through. Every connection it
// opens shares the check's deadline and is closed when the check ends, or
// as soon as a server the runner started has died.
type Env struct {
	Addr     string
	stage    *Stage
	edition  Edition
	fresh    bool // the key space was empty when the check started
	deadline time.Time
	verbose  bool

	mu       sync.Mutex
	conns    []net.Conn
	dead     bool
	warnings []string

	// restart kills the server and starts it again; nil when the runner
	// did not start it.
	restart func() error
}

// Restart kills the server (SIGKILL: a crash, with no chance to save
// anything) and starts it again with the same command line, on the same
// address, for the checks of what a server keeps. The connections open
// are closed. Without -server it is an error: the runner cannot restart
// a server it did not start.
func (e *Env) Restart() error {
	if e.restart == nil {
		return errors.New("the runner did not start the server (use -server): it cannot restart it")
	}
	e.closeAll()
	return e.restart()
}

// Warn records a warning; the check then ends as a warning unless it fails.
func (e *Env) Warn(format string, args ...any) {
	e.warnings = append(e.warnings, fmt.Sprintf(format, args...))
}

func (e *Env) serverDied() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dead = true
	for _, c := range e.conns {
		c.Close()
	}
}

func (e *Env) died() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dead
}

func (e *Env) closeAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.conns {
		c.Close()
	}
	e.conns = nil
}

// Conn is one client connection. It remembers the last request sent and
// the bytes of the reply being read, so that every failure report can show
// both, a connection the server closed included.
type Conn struct {
	e    *Env
	c    net.Conn
	br   *bufio.Reader
	last []byte // the request the next reply answers
	got  []byte // the bytes of the reply read so far
}

// Read reads from the connection, recording what arrives.
func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.c.Read(p)
	if len(c.got) < 4096 {
		c.got = append(c.got, p[:min(n, 4096-len(c.got))]...)
	}
	return n, err
}

// Dial opens a connection to the server.
func (e *Env) Dial() (*Conn, error) {
	if e.died() {
		return nil, errors.New("the server has exited")
	}
	d := net.Dialer{Deadline: e.deadline}
	c, err := d.Dial("tcp", e.Addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %v", e.Addr, err)
	}
	c.SetDeadline(e.deadline)
	e.mu.Lock()
	e.conns = append(e.conns, c)
	dead := e.dead
	e.mu.Unlock()
	if dead {
		c.Close()
		return nil, errors.New("the server has exited")
	}
	conn := &Conn{e: e, c: c}
	conn.br = bufio.NewReaderSize(conn, 64<<10)
	return conn, nil
}

// Send writes b in one write.
func (c *Conn) Send(b []byte) error {
	c.last = b
	if _, err := c.c.Write(b); err != nil {
		return fmt.Errorf("sending %s: %v", c.e.showRequest(b), err)
	}
	return nil
}

// SendBytewise writes b one byte per write.
func (c *Conn) SendBytewise(b []byte) error {
	c.last = b
	for i := range b {
		if _, err := c.c.Write(b[i : i+1]); err != nil {
			return fmt.Errorf("sending byte %d of %s: %v", i, c.e.showRequest(b), err)
		}
	}
	return nil
}

// SetTimeout shortens (or restores) the connection's deadline.
func (c *Conn) SetTimeout(d time.Duration) {
	t := time.Now().Add(d)
	if t.After(c.e.deadline) || d == 0 {
		t = c.e.deadline
	}
	c.c.SetDeadline(t)
}

// Close closes the connection.
func (c *Conn) Close() { c.c.Close() }

// writeRepeated writes req count times, from another goroutine
// so that the replies pile up unread meanwhile (the server's writes then
// block), and returns the channel that will hold the writes' result. It
// gives the writes 200 ms before it returns.
func (c *Conn) writeRepeated(req []byte, count int) chan error {
	written := make(chan error, 1)
	go func() {
		for range count {
			if _, err := c.c.Write(req); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()
	select {
	case err := <-written:
		written <- err
	case <-time.After(200 * time.Millisecond):
	}
	return written
}

// CloseWrite half-closes the connection: the server reads EOF.
func (c *Conn) CloseWrite() {
	if tc, ok := c.c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
}

// ReadReply reads one framed reply and returns its body. The frame length
// is bounded by the edition's message limit.
func (c *Conn) ReadReply() ([]byte, error) {
	c.got = c.got[:0]
	body, err := wire.ReadFrameMax(c.br, nil, c.e.maxMsg())
	switch {
	case errors.Is(err, wire.ErrTooBig):
		return nil, c.readErr("reading a reply", fmt.Errorf("its header announces more than the %d-byte message limit", c.e.maxMsg()))
	case err != nil:
		return nil, c.readErr("reading a reply", err)
	}
	return body, nil
}

// readErr describes a failed read: what was sent, what went wrong, and
// what had arrived of the reply.
func (c *Conn) readErr(what string, err error) error {
	var why string
	switch {
	case c.e.died():
		why = "the server exited"
	case isTimeout(err):
		why = "no reply before the check's deadline (the server may be stuck)"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		why = "the server closed the connection"
	default:
		why = err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "request:  %s\n", c.e.showRequest(c.last))
	fmt.Fprintf(&b, "%s: %s\n", what, why)
	if len(c.got) == 0 {
		b.WriteString("received: nothing")
	} else {
		fmt.Fprintf(&b, "received: %d bytes %s", len(c.got), quoteClip(c.got))
	}
	if c.e.verbose {
		fmt.Fprintf(&b, "\nrequest hex:  %s\nreceived hex: %s", hexOf(c.last), hexOf(c.got))
	}
	return errors.New(b.String())
}

// quoteClip quotes b, cut to 200 bytes.
func quoteClip(b []byte) string {
	if len(b) > 200 {
		return strconv.Quote(string(b[:200])) + "..."
	}
	return strconv.Quote(string(b))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Mismatch is a reply that differs from the expected one.
type Mismatch struct {
	Request   []byte
	Want, Got []byte
	e         *Env
}

func (m *Mismatch) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "request:  %s\n", m.e.showRequest(m.Request))
	fmt.Fprintf(&b, "expected: %s\n", m.e.showReply(m.Want))
	fmt.Fprintf(&b, "received: %s", m.e.showReply(m.Got))
	if m.e.verbose {
		fmt.Fprintf(&b, "\nexpected hex: %s\nreceived hex: %s", hexOf(m.Want), hexOf(m.Got))
		if len(m.Request) > 0 {
			fmt.Fprintf(&b, "\nrequest hex:  %s", hexOf(m.Request))
		}
	}
	return b.String()
}

func hexOf(b []byte) string {
	if len(b) > 256 {
		return hex.EncodeToString(b[:256]) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return hex.EncodeToString(b)
}

// RequestReply sends the framed request req and returns the body of its
// reply.
func (c *Conn) RequestReply(req []byte) ([]byte, error) {
	if err := c.Send(req); err != nil {
		return nil, err
	}
	return c.ReadReply()
}

// Expect reads one reply and compares its body with want, byte for byte.
// req is only for the report.
func (c *Conn) Expect(req, want []byte) error {
	c.last = req
	got, err := c.ReadReply()
	if err != nil {
		return err
	}
	if string(got) != string(want) {
		return &Mismatch{Request: req, Want: want, Got: got, e: c.e}
	}
	return nil
}

// Do sends req and checks the reply.
func (c *Conn) Do(req, want []byte) error {
	if err := c.Send(req); err != nil {
		return err
	}
	return c.Expect(req, want)
}

// Cmd sends a command (a framed list of strings) and checks the reply.
func (c *Conn) Cmd(want []byte, args ...string) error {
	return c.Do(c.e.Req(args...), want)
}

// ExpectClosed checks that the server closes the connection without
// sending anything (more).
func (c *Conn) ExpectClosed(why string) error {
	buf := make([]byte, 64)
	n, err := c.br.Read(buf)
	switch {
	case n > 0:
		return fmt.Errorf("%s: expected the server to close the connection, received %q", why, buf[:n])
	case c.e.died():
		return fmt.Errorf("%s: the server exited instead of closing only this connection", why)
	case isTimeout(err):
		return fmt.Errorf("%s: expected the server to close the connection, it stayed open until the check's deadline", why)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return nil
	}
	return fmt.Errorf("%s: %v", why, err)
}

// Request and reply encoding, per the stage's wire format.

// Frame puts body behind its u32 length.
func Frame(body []byte) []byte {
	return wire.AppendFrame(nil, body)
}

// le32 is a little-endian u32.
func le32(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }

// Req frames a command as a list of strings. Unlike wire.AppendRequest it
// does not refuse requests over the limits: checks send those on purpose.
func (e *Env) Req(args ...string) []byte {
	return wire.AppendRawRequest(nil, args...)
}

// Res is a chapter 07-08 reply body: u32 status, then data.
func (e *Env) Res(status uint32, data string) []byte {
	return append(le32(status), data...)
}

// tags is the stage's tag numbering; the newer edition numbers arrays 5
// and doubles 4 from chapter 09 on.
func (e *Env) tags() wire.Tags {
	if e.newer() {
		return wire.Tags11
	}
	return e.stage.Proto.Tags()
}

// Nil, Err, Str, Int, Dbl and Arr are serialized reply bodies (chapter 09
// on), with the stage's tag numbering.
func (e *Env) Nil() []byte { return []byte{byte(wire.TagNil)} }

// Err is a serialized error.
func (e *Env) Err(code int32, msg string) []byte { return wire.AppendErr(nil, code, msg) }

// Str is a serialized string.
func (e *Env) Str(s string) []byte { return wire.AppendStr(nil, s) }

// Int is a serialized integer.
func (e *Env) Int(n int64) []byte { return wire.AppendInt(nil, n) }

// Dbl is a serialized double.
func (e *Env) Dbl(f float64) []byte {
	return binary.LittleEndian.AppendUint64([]byte{e.tags().Dbl}, math.Float64bits(f))
}

// Arr is a serialized array of the given serialized elements.
func (e *Env) Arr(elems ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32([]byte{e.tags().Arr}, uint32(len(elems)))
	for _, el := range elems {
		b = append(b, el...)
	}
	return b
}

// Edition-dependent values.

func (e *Env) newer() bool { return e.edition == EditionNewer }

// maxMsg is k_max_msg for this stage and edition.
func (e *Env) maxMsg() int {
	if e.newer() && e.stage.Num >= 6 {
		return 32 << 20
	}
	return 4096
}

// maxArgs is k_max_args for this stage and edition.
func (e *Env) maxArgs() int {
	if e.newer() {
		return 200000
	}
	return 1024
}

// Unknown is the reply to an unknown command (or wrong arity).
func (e *Env) Unknown() []byte {
	switch {
	case e.stage.Proto.StatusReplies() && e.newer():
		return e.Res(1, "")
	case e.stage.Proto.StatusReplies():
		return e.Res(1, "Unknown cmd")
	case e.newer():
		return e.Err(1, "unknown command.")
	}
	return e.Err(1, "Unknown cmd")
}

// TooBig is the reply that replaces one that would not fit a message.
func (e *Env) TooBig() []byte {
	if e.newer() {
		return e.Err(2, "response is too big.")
	}
	return e.Err(2, "response is too big")
}

// Showing requests and replies.

// showRequest decodes a framed request for a report.
func (e *Env) showRequest(b []byte) string {
	if len(b) == 0 {
		return "(nothing)"
	}
	switch p := e.stage.Proto; {
	case p == chapters.Hello:
		return fmt.Sprintf("%q (bare bytes)", clip(b))
	case p == chapters.RESP:
		return showRESPRequest(b)
	case p.TextMessages():
		if len(b) >= 4 && int(binary.LittleEndian.Uint32(b)) == len(b)-4 {
			return fmt.Sprintf("frame %q", clip(b[4:]))
		}
		return fmt.Sprintf("%d raw bytes %x", len(b), clip(b))
	}
	if len(b) >= 4 && int(binary.LittleEndian.Uint32(b)) == len(b)-4 {
		if args, err := wire.SplitRequest(b[4:]); err == nil {
			parts := make([]string, len(args))
			for i, a := range args {
				parts[i] = showWord(a)
			}
			if len(parts) > 8 {
				parts = append(parts[:8], fmt.Sprintf("... (%d strings)", len(args)))
			}
			return strings.Join(parts, " ")
		}
	}
	return fmt.Sprintf("%d raw bytes %x", len(b), clip(b))
}

func showWord(s string) string {
	if len(s) > 24 {
		return fmt.Sprintf("%q...(%d bytes)", s[:16], len(s))
	}
	if s == "" || strings.ContainsAny(s, " '\"\\") || strconv.Quote(s) != `"`+s+`"` {
		return strconv.Quote(s)
	}
	return s
}

func clip(b []byte) []byte {
	if len(b) > 48 {
		return b[:48]
	}
	return b
}

// showReply renders a reply body as the chapter's client prints it, on
// one line.
func (e *Env) showReply(b []byte) string {
	if b == nil {
		return "(nothing)"
	}
	s, err := e.render(b)
	if err != nil {
		return fmt.Sprintf("undecodable (%v): %x", err, clip(b))
	}
	s = strings.TrimSuffix(s, "\n")
	if len(s) > 300 {
		s = s[:300] + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return strings.ReplaceAll(s, "\n", " | ")
}

// render prints a reply body the way the chapter's client does.
func (e *Env) render(b []byte) (string, error) {
	switch p := e.stage.Proto; {
	case p == chapters.Hello || p.TextMessages():
		return fmt.Sprintf("server says: %s\n", b), nil
	case p == chapters.RESP:
		return quoteClip(b), nil
	case p.StatusReplies():
		if len(b) < 4 {
			return "", errors.New("reply shorter than its status")
		}
		return fmt.Sprintf("server says: [%d] %s\n", binary.LittleEndian.Uint32(b), b[4:]), nil
	}
	v, n, err := e.tags().Decode(b)
	if err != nil {
		return "", err
	}
	if n != len(b) {
		return "", fmt.Errorf("%d bytes after the value", len(b)-n)
	}
	var sb strings.Builder
	printValue(&sb, v)
	return sb.String(), nil
}

func printValue(sb *strings.Builder, v wire.Value) {
	switch v.Tag {
	case wire.TagNil:
		sb.WriteString("(nil)\n")
	case wire.TagErr:
		fmt.Fprintf(sb, "(err) %d %s\n", v.Code, v.Str)
	case wire.TagStr:
		fmt.Fprintf(sb, "(str) %s\n", v.Str)
	case wire.TagInt:
		fmt.Fprintf(sb, "(int) %d\n", v.Int)
	case wire.TagDbl:
		fmt.Fprintf(sb, "(dbl) %s\n", formatG(v.Dbl))
	case wire.TagArr:
		fmt.Fprintf(sb, "(arr) len=%d\n", len(v.Arr))
		for _, el := range v.Arr {
			printValue(sb, el)
		}
		sb.WriteString("(arr) end\n")
	}
}

// formatG prints a double as C's printf("%g") does.
func formatG(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// dialEach dials a new connection into each of conns, for a check that
// needs several.
func (e *Env) dialEach(conns ...**Conn) error {
	for _, c := range conns {
		var err error
		if *c, err = e.Dial(); err != nil {
			return err
		}
	}
	return nil
}

// dialed makes a check's Run of run, which is given a new connection to
// the server: most checks begin by dialing one.
func dialed(run func(e *Env, c *Conn) error) func(e *Env) error {
	return func(e *Env) error {
		c, err := e.Dial()
		if err != nil {
			return err
		}
		return run(e, c)
	}
}
