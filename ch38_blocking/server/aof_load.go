package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"example.com/byor/ch38_blocking/resp"
)

// Replaying the append-only file at start: each command is run through
// the command table, as a client's would be, with nothing appended to the
// log. The file is read a record at a time, and a record's memory grows
// only with the bytes actually read: a length a damaged or hostile file
// announces allocates nothing by itself.

// kAOFMaxArgs bounds the arguments of one logged command, as a request's
// are bounded; a record of more is damage.
const kAOFMaxArgs = 1 << 24

// kAOFReplyKeep is the most of the replay's reply buffer kept from one
// command to the next: a reply of megabytes (GETSET's) is not kept.
const kAOFReplyKeep = 64 << 10

// errAOFShort is a record cut off by the end of the file.
var errAOFShort = errors.New("short read")

// aofReader reads records, counting the offset.
type aofReader struct {
	r   *bufio.Reader
	off int64
}

// line reads a line ending in CRLF, without it. A line of more than 32
// bytes is damage: every line of the log is a count or a length.
func (ar *aofReader) line() (string, error) {
	var b []byte
	for {
		c, err := ar.r.ReadByte()
		if err == io.EOF {
			return "", errAOFShort
		}
		if err != nil {
			return "", err
		}
		ar.off++
		if c == '\n' {
			if len(b) == 0 || b[len(b)-1] != '\r' {
				return "", errors.New("a line not ended by CRLF")
			}
			return string(b[:len(b)-1]), nil
		}
		if len(b) > 32 {
			return "", errors.New("a line too long")
		}
		b = append(b, c)
	}
}

// count reads a line "<prefix><n>" with 0 <= n <= limit.
func (ar *aofReader) count(prefix byte, limit int64) (int, error) {
	s, err := ar.line()
	if err != nil {
		return 0, err
	}
	if len(s) < 2 || s[0] != prefix {
		return 0, fmt.Errorf("expected '%c', found %q", prefix, s)
	}
	n, ok := respInt([]byte(s[1:]))
	if !ok || n < 0 || n > limit {
		return 0, fmt.Errorf("a bad count %q", s)
	}
	return int(n), nil
}

// record reads one command: *n, then n bulk strings.
func (ar *aofReader) record() ([][]byte, error) {
	// exercise: ch33-aof-records
	argc, err := ar.count('*', kAOFMaxArgs)
	if err != nil {
		return nil, err
	}
	if argc == 0 {
		return nil, errors.New("a command of no arguments")
	}
	var args [][]byte // grown as the arguments come, not made argc long
	for range argc {
		n, err := ar.count('$', resp.MaxBulkLen)
		if err != nil {
			return nil, err
		}
		arg, err := ar.bytes(n)
		if err != nil {
			return nil, err
		}
		args = append(args, arg)
		if end, err := ar.line(); err != nil {
			return nil, err
		} else if end != "" { // the CRLF after it is an empty line
			return nil, errors.New("a bulk string not ended by CRLF")
		}
	}
	return args, nil
	// end exercise: ch33-aof-records
}

// bytes reads n bytes, in pieces of at most 1 MiB: a length the file
// announces but does not hold costs no more than what it does hold.
func (ar *aofReader) bytes(n int) ([]byte, error) {
	b := make([]byte, 0, min(n, 1<<20))
	for len(b) < n {
		piece := min(n-len(b), 1<<20)
		b = slices.Grow(b, piece) // doubling: amortized O(1) a byte
		got, err := io.ReadFull(ar.r, b[len(b):len(b)+piece])
		b = b[:len(b)+got]
		ar.off += int64(got)
		if err != nil {
			return nil, errAOFShort
		}
	}
	return b, nil
}

// aofCommand finds the row of a logged command, which must be a command of
// the table with the arguments its arity allows.
func aofCommand(args [][]byte, at int64) (*command, error) {
	c, unknown := respResolve(args)
	if c == nil {
		return nil, fmt.Errorf("%s at offset %d", strings.TrimPrefix(unknown, "ERR "), at)
	}
	if !arityOK(c.arity, len(args)) {
		return nil, fmt.Errorf("%s at offset %d", strings.TrimPrefix(errArity(c.name), "ERR "), at)
	}
	return c, nil
}

// aofKeepCut copies the bytes of the file f (at path) past from into a
// file beside it, before the load cuts them off, and returns its name: a
// cut back to a transaction's MULTI far behind loses nothing for good.
func aofKeepCut(f *os.File, path string, from int64) (string, error) {
	name := fmt.Sprintf("%s.cut-%d", path, getUnixMs())
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		_, err = io.Copy(out, io.NewSectionReader(f, from, 1<<62))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return "", fmt.Errorf("keeping the bytes cut off the append-only file %s in %s: %w", path, name, err)
	}
	return name, nil
}

// aofLoad replays the file at path, if there is one, and returns its
// size once loaded. A last command cut off (a crash in the middle of a
// write) is dropped, and the file cut back to the commands before it,
// as Redis does with aof-load-truncated yes; so is a transaction whose
// EXEC is missing. The bytes cut off are kept in a file beside it. Any
// other damage is an error naming the offset.
func aofLoad(path string) (int64, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("opening the append-only file: %w", err)
	}
	defer f.Close()
	aofLoading = true
	defer func() { aofLoading = false }()

	ar := &aofReader{r: bufio.NewReaderSize(f, 1<<16)}
	st := &respState{w: respWriter{ver: resp.RESP2}}
	defer func() {
		// What the file's commands left in the replay's client state
		// (watched keys, a name) and its reply buffer go back to the
		// budget: no one is left to read them.
		st.release()
		outputHeld -= cap(st.w.buf)
		st.w.buf = nil
	}()
	var (
		loaded   int64      // the end of the last command applied
		multi    [][][]byte // a transaction's commands, until its EXEC
		multiAt  []int64    // and their offsets, for errors
		inMulti  bool
		short    bool // the file ends in the middle of a command
		commands int
		refused  int
		skipped  int // not writes: the log holds none, and they change nothing
	)
	run := func(args [][]byte, at int64) error {
		c, err := aofCommand(args, at)
		if err != nil {
			return err
		}
		if c.flags&flagWrite == 0 {
			// A read (KEYS, LCS) in a damaged or hostile file would cost
			// its full time and change nothing.
			skipped++
			return nil
		}
		if cap(st.w.buf) > kAOFReplyKeep {
			outputHeld -= cap(st.w.buf) // a big reply's buffer is not kept
			st.w.buf = nil
		}
		st.w.begin(st.w.buf[:0]) // and one over the budget does not stop the next
		c.run(st, &st.w, args)
		if len(st.w.buf) > 0 && st.w.buf[0] == '-' {
			refused++ // as Redis, an error reply does not stop the load
		}
		commands++
		return nil
	}
	for {
		start := ar.off
		if _, err := ar.r.Peek(1); err == io.EOF {
			break
		}
		args, err := ar.record()
		if errors.Is(err, errAOFShort) {
			short = true
			break
		}
		if err != nil {
			return 0, fmt.Errorf("bad format in the append-only file %s at offset %d: %v (the commands before it are whole; redis-check-aof --fix cuts the file there, losing what follows)", path, start, err)
		}
		switch {
		case cmdIs(args[0], "multi"):
			if inMulti {
				return 0, fmt.Errorf("bad format in the append-only file %s at offset %d: MULTI inside a transaction", path, start)
			}
			inMulti = true
		case cmdIs(args[0], "exec"):
			if !inMulti {
				return 0, fmt.Errorf("bad format in the append-only file %s at offset %d: EXEC without MULTI", path, start)
			}
			for i, cmd := range multi {
				if err := run(cmd, multiAt[i]); err != nil {
					return 0, fmt.Errorf("in the append-only file %s: %v", path, err)
				}
			}
			multi, multiAt, inMulti = nil, nil, false
			loaded = ar.off
		case inMulti:
			// Checked now, not at EXEC: a damaged EXEC would otherwise
			// leave every record after it in the transaction, to be
			// dropped at the end as one cut off.
			if _, err := aofCommand(args, start); err != nil {
				return 0, fmt.Errorf("in the append-only file %s: %v", path, err)
			}
			multi, multiAt = append(multi, args), append(multiAt, start)
		default:
			if err := run(args, start); err != nil {
				return 0, fmt.Errorf("in the append-only file %s: %v", path, err)
			}
			loaded = ar.off
		}
	}
	if short || inMulti {
		what := "command"
		if inMulti {
			what = "transaction"
		}
		kept, err := aofKeepCut(f, path, loaded)
		if err != nil {
			return 0, err
		}
		msg("!!! warning: the append-only file %s ends in the middle of a %s: loading its first %d bytes, the whole commands, and cutting the file there (aof-load-truncated yes); the bytes cut off are kept in %s", path, what, loaded, kept)
		if err := os.Truncate(path, loaded); err != nil {
			return 0, fmt.Errorf("cutting the append-only file %s to %d bytes: %w", path, loaded, err)
		}
	}
	msg("loaded the append-only file %s: %d commands, %d bytes (%d refused by the command table, %d skipped: not writes)", path, commands, loaded, refused, skipped)
	return loaded, nil
}
