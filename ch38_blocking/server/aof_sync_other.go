//go:build !linux

package server

import "golang.org/x/sys/unix"

// fdatasync is fsync(2) where the system has no fdatasync (macOS).
func fdatasync(fd int) error { return unix.Fsync(fd) }
