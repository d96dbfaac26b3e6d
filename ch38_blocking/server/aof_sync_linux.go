package server

import "golang.org/x/sys/unix"

// fdatasync puts the log's data on the disk: fdatasync(2), which skips
// the metadata a reader does not need (the file's times), as Redis does
// on Linux.
func fdatasync(fd int) error { return unix.Fdatasync(fd) }
