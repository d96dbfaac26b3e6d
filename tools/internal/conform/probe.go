package conform

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"example.com/byor/tools/internal/chapters"
	"example.com/byor/tools/internal/wire"
)

// probe sends one tell-tale request per wire format, each on its own
// connection, and returns the format whose answer the server gives, and
// whether any fitted. It is run after a stage fails, to tell a reader who
// pointed the runner at a server of another chapter which one it looks
// like.
func probe(addr string, timeout time.Duration) (chapters.Protocol, bool) {
	ask := func(req []byte, wait int) []byte {
		c, err := net.DialTimeout("tcp", addr, timeout)
		if err != nil {
			return nil
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(timeout))
		if _, err := c.Write(req); err != nil {
			return nil
		}
		var got []byte
		buf := make([]byte, 512)
		for len(got) < wait {
			n, err := c.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		return got
	}
	// Redis's protocol first: an inline PING. A book server reads "PING"
	// as a length far above its limit and hangs up; chapter 03's answers
	// "world" to anything.
	got := ask([]byte("PING\r\n"), 7)
	switch {
	case bytes.HasPrefix(got, []byte("+PONG\r\n")):
		return chapters.RESP, true
	case bytes.HasPrefix(got, []byte("world")):
		return chapters.Hello, true
	}
	// A framed list of strings: "keys". Chapter 04 answers "world",
	// chapter 06 echoes the body, chapter 07 answers a status, chapter 09
	// on an array whose tag tells 09-10 from 11 on.
	req, _ := wire.AppendRequest(nil, "keys")
	got = ask(req, 5)
	if len(got) < 5 {
		return 0, false
	}
	n := int(binary.LittleEndian.Uint32(got))
	body := got[4:]
	switch {
	case n == 5 && bytes.Equal(body, []byte("world")):
		return chapters.World, true
	case n == len(req)-4 && bytes.HasPrefix(req[4:], body):
		return chapters.Echo, true
	case n >= 4 && binary.LittleEndian.Uint32(body) <= 2 && n != 5:
		// A status (RES_OK, RES_ERR "Unknown cmd", RES_NX).
		return chapters.Status, true
	case body[0] == 4:
		return chapters.Tagged9, true
	case body[0] == 5:
		return chapters.Tagged11, true
	}
	return 0, false
}

// lookalike says which chapters' format the server at addr speaks, if
// that is not the format of stage st, for the report of a failed stage.
func lookalike(st *Stage, addr string) string {
	p, ok := probe(addr, 3*time.Second)
	if ok && p == st.Proto && p == chapters.RESP {
		return respLookalike(st, addr, 3*time.Second)
	}
	if !ok || p == st.Proto {
		return ""
	}
	var ids []string
	for _, ch := range chapters.All() {
		if ch.Newest() == p {
			ids = append(ids, ch.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	span := ids[0]
	if len(ids) > 1 {
		span += "-" + ids[len(ids)-1]
	}
	return fmt.Sprintf("hint: this server answers like a %s server (%s), not a %s one (%s): try -upto %s",
		span, p, st.ID, st.Proto, ids[len(ids)-1])
}

// respTellTales are, for the chapters after 17 that add commands to the
// RESP listener, one inline command each that the chapter introduces.
var respTellTales = map[string]string{
	"ch23": "HELLO",
	"ch24": "DBSIZE",
	"ch25": "SCAN 0",
	"ch26": "UNWATCH",
	"ch27": "GETRANGE conform:probe 0 1",
	"ch28": "BITCOUNT conform:probe",
	"ch29": "RANDOMKEY",
	"ch30": "HSTRLEN conform:probe f",
	"ch31": "ZLEXCOUNT conform:probe - +",
	"ch32": "ZINTERCARD 1 conform:probe",
	"ch37": "LLEN conform:probe",
	"ch38": "LMPOP 1 conform:probe LEFT",
}

// respLookalike tells a RESP server of an earlier chapter given a later
// chapter's stage: the newest chapter, up to st, whose tell-tale command
// the server knows. A server that knows them all gets no hint.
func respLookalike(st *Stage, addr string, timeout time.Duration) string {
	knows := func(cmd string) bool {
		c, err := net.DialTimeout("tcp", addr, timeout)
		if err != nil {
			return true
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(timeout))
		if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
			return true
		}
		got := make([]byte, 32)
		n, _ := io.ReadAtLeast(c, got, len("-ERR unknown command"))
		return !bytes.HasPrefix(got[:n], []byte("-ERR unknown command"))
	}
	like, missing := "", ""
	for _, ch := range chapters.All() {
		if ch.Newest() != chapters.RESP || ch.Num > st.Num {
			continue
		}
		if cmd, ok := respTellTales[ch.ID]; ok && !knows(cmd) {
			missing = ch.ID
			break
		}
		like = ch.ID
	}
	if like == "" || missing == "" {
		return ""
	}
	return fmt.Sprintf("hint: this server answers like a %s server (%s), not a %s one: it does not know %s, which %s adds: try -upto %s",
		like, chapters.RESP, st.ID, strings.Fields(respTellTales[missing])[0], missing, like)
}
