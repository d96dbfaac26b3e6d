package server

// The snapshot: the key space written out whole, the loop stopped for it
// (SAVE, SHUTDOWN SAVE). Every key goes through an encoder into a buffer,
// the buffer into a temporary file in the same directory as the file it
// replaces; the temporary file is fsynced, renamed over it, and the
// directory fsynced, so that until the rename the previous file stays
// whole, and after it the new one is on the disk.

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// snapEncoder turns entries into a file's bytes: an RDB file's records
// (rdb_write.go).
type snapEncoder interface {
	// begin appends what comes before the keys.
	begin(buf []byte, keys, expires int) []byte
	// entry appends ent, whose TTL (if any) ends at the unix time
	// expireMs (-1 for none), and returns the work it did.
	entry(buf []byte, ent *entry, expireMs int64, nowMs int64) ([]byte, int)
	// end appends what comes after them.
	end(buf []byte) []byte
}

// snapshot is a snapshot being written: its encoder and its file.
type snapshot struct {
	enc snapEncoder
	// buf holds the bytes not yet written to the temporary file fd.
	buf     []byte
	fd      int
	tmp     string // the temporary file, renamed to path when complete
	path    string
	written int64
	crc     uint64 // of the bytes written, for an encoder that is checksummed
	err     error  // the first error
}

// kSnapFlushBytes is how many bytes the snapshot gathers before it
// writes them to the file: about the memory it holds between writes,
// besides the record of the key it is writing, which it holds whole.
const kSnapFlushBytes = 1 << 20

// snapshotTemp is the temporary file of a snapshot to path: its name
// depends only on the process and path.
func snapshotTemp(path string) string {
	return filepath.Join(filepath.Dir(path), "temp-"+strconv.Itoa(os.Getpid())+"-"+filepath.Base(path))
}

// snapshotTempsRemove removes the temporary file a save still running
// when the process exits leaves behind (a signal ends it mid-SAVE), as
// Redis removes its own. It reads only what is fixed at start, so the
// signal's goroutine may call it too.
func snapshotTempsRemove() {
	os.Remove(snapshotTemp(rdbPath()))
}

// snapshotTempsClean removes, at start, the temporary files that earlier
// processes' saves left in -dir (a kill -9 leaves them): temp-PID-NAME
// for the RDB file's name, whose PID is no process now (or is this one,
// reused: nothing of ours is running yet).
// A live PID may be another server sharing the directory: its file stays.
func snapshotTempsClean() {
	ents, err := os.ReadDir(aofDir)
	if err != nil {
		return // the start's own open of the files says what is wrong
	}
	for _, e := range ents {
		pid, ok := snapshotTempPid(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		if pid != os.Getpid() && unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		if err := os.Remove(filepath.Join(aofDir, e.Name())); err == nil {
			msg("removed %s, left by an earlier process's save", e.Name())
		}
	}
}

// snapshotTempPid returns the PID in name if name is a temporary file of
// snapshotTemp's for the RDB file. The RDB file and the log themselves
// are not, whatever they are named (-appendfilename temp-1-dump.rdb
// names a log like the dump's temporary file).
func snapshotTempPid(name string) (int, bool) {
	if name == rdbState.filename || name == aofFilename {
		return 0, false
	}
	rest, ok := strings.CutPrefix(name, "temp-")
	digits, base, ok2 := strings.Cut(rest, "-")
	if !ok || !ok2 || base != rdbState.filename {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != digits {
		return 0, false
	}
	return pid, true
}

// flush writes the gathered bytes to the file. The kernel takes them into
// its page cache: the disk is reached only by the fsync at the end.
func (s *snapshot) flush() {
	s.out(s.buf)
	s.buf = s.buf[:0]
}

// out writes b to the file, and counts it in the checksum.
func (s *snapshot) out(b []byte) {
	s.crc = crc64Jones(s.crc, b)
	for s.err == nil && len(b) > 0 {
		n, err := unix.Write(s.fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			s.err = &os.PathError{Op: "write", Path: s.tmp, Err: err}
			break
		}
		b = b[n:]
		s.written += int64(n)
	}
}

// syncAndRename makes the complete temporary file the file at path:
// fsync it, rename it over path, fsync the directory so that the rename
// survives a crash. Until the rename the previous file stays whole. On
// an earlier error it closes and removes the temporary file.
func syncAndRename(fd int, tmp, path string, err error) error {
	if err == nil {
		if e := unix.Fsync(fd); e != nil {
			err = &os.PathError{Op: "fsync", Path: tmp, Err: e}
		}
	}
	if e := unix.Close(fd); e != nil && err == nil {
		err = &os.PathError{Op: "close", Path: tmp, Err: e}
	}
	if err == nil {
		err = os.Rename(tmp, path)
		if err == nil {
			err = syncDirErr(filepath.Dir(path))
		}
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// syncDirErr fsyncs the directory dir, so that a rename in it is on disk,
// and returns the error.
func syncDirErr(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Fsync(fd); err != nil && !errors.Is(err, unix.EINVAL) {
		return &os.PathError{Op: "fsync", Path: dir, Err: err}
	}
	return nil
}

// snapshotRun writes the whole key space to path at once, blocking the
// loop (as SAVE and SHUTDOWN do in Redis), and returns its outcome. No
// client runs meanwhile, so nothing changes under it: the file holds the
// key space as it was when the command came.
func snapshotRun(enc snapEncoder, path string) error {
	tmp := snapshotTemp(path)
	fd, err := unix.Open(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &os.PathError{Op: "open", Path: tmp, Err: err}
	}
	s := &snapshot{enc: enc, fd: fd, tmp: tmp, path: path}
	nowMs := int64(getUnixMs())
	s.buf = enc.begin(make([]byte, 0, kSnapFlushBytes), gData.db.Len(), len(gData.heap))
	gData.db.All(func(ent *entry) {
		s.buf, _ = enc.entry(s.buf, ent, entryExpireMs(ent, nowMs), nowMs)
		if len(s.buf) >= kSnapFlushBytes {
			s.flush()
		}
	})
	s.buf = enc.end(s.buf)
	if _, ok := enc.(interface{ checksummed() }); ok {
		s.buf = binary.LittleEndian.AppendUint64(s.buf, crc64Jones(s.crc, s.buf))
	}
	s.flush()
	return syncAndRename(s.fd, s.tmp, s.path, s.err)
}

// snapshotRows are the rows of the command table this chapter adds.
func snapshotRows() []*command {
	return rdbRows()
}
