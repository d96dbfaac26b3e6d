package server

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The event loop must never wait for its own log. Writing to stderr or
// stdout blocks once a pipe nobody reads is full (64 KiB, some 16,000
// short lines), which froze the whole server; and a write to a pipe whose
// reader has gone (server | head -1) kills a Go program with SIGPIPE. So
// lines are queued, and one goroutine writes them: if the queue is full
// a line is dropped (and counted in a note written later), and a failed
// write is ignored, with SIGPIPE ignored too.

// kLogQueue is how many lines may wait to be written.
const kLogQueue = 1024

type logLine struct {
	w    io.Writer
	text string
	done chan struct{} // for logFlush: closed once the lines before are written
}

var logState struct {
	once    sync.Once
	queue   chan logLine
	dropped atomic.Int64
}

// logStart starts the writer, once.
func logStart() {
	logState.once.Do(func() {
		signal.Ignore(syscall.SIGPIPE)
		logState.queue = make(chan logLine, kLogQueue)
		go logWriter()
	})
}

// logWriter writes the queued lines, in order.
func logWriter() {
	for l := range logState.queue {
		if l.done != nil {
			close(l.done)
			continue
		}
		if n := logState.dropped.Swap(0); n > 0 {
			fmt.Fprintf(os.Stderr, "(%d log lines dropped: the log was not being read)\n", n)
		}
		io.WriteString(l.w, l.text)
	}
}

// logTo queues one line for w, or drops it if the queue is full.
func logTo(w io.Writer, format string, args ...any) {
	logStart()
	select {
	case logState.queue <- logLine{w: w, text: fmt.Sprintf(format+"\n", args...)}:
	default:
		logState.dropped.Add(1)
	}
}

// msg logs one line to stderr, like the book's msg().
func msg(format string, args ...any) {
	logTo(os.Stderr, format, args...)
}

// logFlush waits until the lines queued so far are written, or timeout
// passes: the last lines before the process exits should not be lost,
// but an exit must not hang on a log nobody reads.
func logFlush(timeout time.Duration) {
	logStart()
	done := make(chan struct{})
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case logState.queue <- logLine{done: done}:
	case <-timer.C:
		return
	}
	select {
	case <-done:
	case <-timer.C:
	}
}
