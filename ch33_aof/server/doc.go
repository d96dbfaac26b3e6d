// Package server is chapter 33's server: chapter 32's, with an append-only
// log of the writes, fsynced as appendfsync says, written before the
// replies that depend on it and replayed at start.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
