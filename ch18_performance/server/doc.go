// Package server is chapter 18's server: chapter 17's, cheap per request:
// no allocation for a request, the clock without a system call, fewer bytes
// per key, and a cache-friendly table for the key space (package keytable).
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
