package server

import (
	"sync/atomic"
	"time"
)

// aofWrittenShared is aofWritten as the everysec worker reads it: the
// loop stores it after each write.
var aofWrittenShared atomic.Int64

// aofFsyncFailed says the worker's last fsync failed (INFO's
// aof_last_fsync_status... reported as aof_last_write_status).
var aofFsyncFailed atomic.Bool

// aofFsyncWorker is appendfsync everysec's fsync: once a second, off the
// event loop, it fsyncs what the loop has written. The loop never waits
// for the disk; a crash of the machine (not of the process: the kernel
// keeps what was written) loses what was written since the last fsync,
// a second or two. An fsync that fails is tried again a second later.
func aofFsyncWorker() {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for range tick.C {
		aofFsyncTick()
	}
}

// aofFsyncTick is one of the worker's ticks: it fsyncs the log if the
// size written differs from the size synced. Differs, not exceeds: a
// rewrite's switch (aof_rewrite.go) sets both to the new, smaller file's
// size, and a tick whose fdatasync straddles it stores the old file's
// larger one after that; with "exceeds" no tick would sync again until
// the log grew past the old size.
func aofFsyncTick() {
	written := aofWrittenShared.Load()
	if written == aofSynced.Load() {
		return
	}
	if err := fdatasync(aofFd); err != nil {
		aofFsyncFailed.Store(true)
		return
	}
	aofFsyncFailed.Store(false)
	aofSynced.Store(written)
}
