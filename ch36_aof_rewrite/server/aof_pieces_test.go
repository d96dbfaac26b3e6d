package server

import (
	"bytes"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"example.com/byor/ch36_aof_rewrite/resp"
)

// TestBigRecordWrittenInPieces: a record past kAOFWritePiece goes to the
// file a piece per iteration of the loop, not in one write(2) during which
// the kernel copies hundreds of MiB and every client waits (an MSET of
// 200 MiB held a bystander's PING for a second). The writer's reply waits
// for the last piece; a reader's, under everysec, does not; the loop does
// not sleep meanwhile; the file ends with the record whole, and records
// appended meanwhile follow it.
func TestBigRecordWrittenInPieces(t *testing.T) {
	path := logOn(t)
	saved := aofPolicy
	aofPolicy = fsyncEverysec
	t.Cleanup(func() {
		aofPolicy = saved
		clear(aofHeld)
	})
	size := func() int {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return int(st.Size())
	}
	st := newRESPState(nil)
	wsrv, _ := testPair(t, unix.SOCK_STREAM)
	writer := newTestRESPConn(t, wsrv)
	rsrv, _ := testPair(t, unix.SOCK_STREAM)
	reader := newTestRESPConn(t, rsrv)
	connPut(&gData.fd2conn, writer) // aofBeforeSleep sends to the connections it finds
	connPut(&gData.fd2conn, reader)
	mark := aofCmds
	big := [][]byte{[]byte("SET"), []byte("big"), bytes.Repeat([]byte{'v'}, 3*kAOFWritePiece)}
	if reply := respRunArgs(st, big); reply != "+OK\r\n" {
		t.Fatalf("SET: %.100q", reply)
	}
	if !aofHold(writer, mark) {
		t.Fatal("the reply of a write whose record is not in the file yet is not held")
	}
	if got := size(); got != kAOFWritePiece {
		t.Fatalf("the end of the writer's turn wrote %d bytes of its %d-byte record; want one piece, %d", got, respBytes(big), kAOFWritePiece)
	}
	if aofHold(reader, aofCmds) {
		t.Error("under everysec, a reader's reply waits for another client's big write")
	}
	small := [][]byte{[]byte("SET"), []byte("small"), []byte("v")}
	if reply := respRunArgs(st, small); reply != "+OK\r\n" {
		t.Fatalf("SET: %q", reply)
	}
	iterations := 1
	for aofWaits(writer) {
		if aofNextUs(1000) != 1000 {
			t.Fatal("the loop may sleep while a big write is still to do")
		}
		before := size()
		aofBeforeSleep()
		if grew := size() - before; grew > kAOFWritePiece {
			t.Fatalf("one iteration wrote %d bytes, more than a piece (%d)", grew, kAOFWritePiece)
		}
		if iterations++; iterations > 10 {
			t.Fatal("the write does not end")
		}
	}
	if iterations < 3 {
		t.Errorf("a record of 3 pieces was written in %d iterations", iterations)
	}
	aofBeforeSleep()
	if aofPending() != 0 || aofNextUs(1000) != ^uint64(0) {
		t.Errorf("after the write, %d bytes wait and the loop wakes at %d", aofPending(), aofNextUs(1000))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := resp.AppendRequest(resp.AppendRequest(nil, big...), small...)
	if !bytes.Equal(data, want) {
		t.Errorf("the file holds %d bytes, want the two records, %d", len(data), len(want))
	}
}
