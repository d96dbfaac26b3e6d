// Package server is chapter 17's server: chapter 16's, on an event loop
// that costs a few system calls per wakeup (epoll, one read and one write
// for a batch of requests, TCP_NODELAY, accept4), with what each client may
// make it hold bounded.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
