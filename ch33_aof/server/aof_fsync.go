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
		written := aofWrittenShared.Load()
		if written <= aofSynced.Load() {
			continue
		}
		if err := fdatasync(aofFd); err != nil {
			aofFsyncFailed.Store(true)
			continue
		}
		aofFsyncFailed.Store(false)
		aofSynced.Store(written)
	}
}
