package floor

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"example.com/byor/tools/internal/wire"
)

// TestAnswersEachWholeRequest: pipelined requests, one of them split
// across two writes, get one nil each, in order and nothing more; a
// message over the book's 4 KiB ends the connection.
func TestAnswersEachWholeRequest(t *testing.T) {
	lfd, port, err := Listen([4]byte{127, 0, 0, 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- Serve(lfd, stop) }()
	t.Cleanup(func() {
		close(stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))

	var reqs []byte
	for _, cmd := range [][]string{{"set", "k", "v"}, {"get", "k"}, {"del", "k"}} {
		reqs = wire.AppendRawRequest(reqs, cmd...)
	}
	split := len(reqs) - 3 // the last request's final bytes come later
	c.Write(reqs[:split])
	got := make([]byte, 10)
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, bytes.Repeat(nilReply, 2)) {
		t.Fatalf("two whole requests: %x, %v; want two nils", got, err)
	}
	c.Write(reqs[split:])
	if _, err := io.ReadFull(c, got[:5]); err != nil || !bytes.Equal(got[:5], nilReply) {
		t.Fatalf("the completed third: %x, %v; want a nil", got[:5], err)
	}

	c.Write([]byte{0x01, 0x10, 0, 0}) // 4097 bytes: too long
	if n, err := c.Read(got); n != 0 || err == nil {
		t.Fatalf("after a message over 4 KiB: read %d bytes, %v; want the connection closed", n, err)
	}
}
