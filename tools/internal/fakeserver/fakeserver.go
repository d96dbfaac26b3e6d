// Package fakeserver is a stand-in server for the load tools' tests: it
// listens on 127.0.0.1, reads requests in the chapters' protocol or in
// Redis's, and answers each with whatever the test's reply function says.
package fakeserver

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"example.com/byor/testkit/resp"
	"example.com/byor/tools/internal/wire"
)

// Server is a running fake. It counts the requests it saw by command name
// (lower case).
type Server struct {
	Addr string
	mu   sync.Mutex
	seen map[string]int
}

// Counts returns how many requests of each command the server has seen.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]int, len(s.seen))
	for k, v := range s.seen {
		m[k] = v
	}
	return m
}

// Book starts a server speaking the chapters' protocol. reply gets each
// request's arguments and returns the whole reply frame, or nil to hang up.
// Calls to reply are serialized, so it may keep state without a lock.
func Book(t testing.TB, reply func(args []string) []byte) *Server {
	return start(t, func(r *bufio.Reader, buf []byte) ([]string, error) {
		body, err := wire.ReadFrame(r, buf)
		if err != nil {
			return nil, err
		}
		return wire.ParseRequest(body)
	}, reply)
}

// RESP starts a server speaking Redis's protocol. reply gets each
// command's arguments and returns the reply as it goes on the wire (such
// as "+OK\r\n"), or "" to hang up. Calls to reply are serialized.
func RESP(t testing.TB, reply func(args []string) string) *Server {
	return start(t, readCommand, func(args []string) []byte {
		if out := reply(args); out != "" {
			return []byte(out)
		}
		return nil
	})
}

// readCommand reads one command: an array of bulk strings.
func readCommand(r *bufio.Reader, _ []byte) ([]string, error) {
	head, err := resp.ReadReply(r, nil)
	if err != nil {
		return nil, err
	}
	if head.Kind != resp.Array {
		return nil, resp.ErrProtocol
	}
	args := make([]string, head.Int)
	for i := range args {
		a, err := resp.ReadReply(r, nil)
		if err != nil {
			return nil, err
		}
		args[i] = string(a.Str)
	}
	return args, nil
}

func start(t testing.TB, read func(*bufio.Reader, []byte) ([]string, error), reply func([]string) []byte) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), seen: map[string]int{}}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { s.serve(c, read, reply) })
		}
	})
	return s
}

func (s *Server) serve(c net.Conn, read func(*bufio.Reader, []byte) ([]string, error), reply func([]string) []byte) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second)) // a broken test must not hang
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	defer w.Flush()
	buf := make([]byte, wire.MaxMsg)
	for {
		args, err := read(r, buf)
		if err != nil || len(args) == 0 {
			return
		}
		s.mu.Lock()
		s.seen[strings.ToLower(args[0])]++
		out := reply(args)
		s.mu.Unlock()
		if out == nil {
			return
		}
		w.Write(out)
		// Answer a pipelined batch with one write, as the servers do.
		if r.Buffered() == 0 && w.Flush() != nil {
			return
		}
	}
}
