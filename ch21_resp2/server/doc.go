// Package server is chapter 21's server: chapter 20's, which also speaks
// Redis's protocol, RESP2, on a second listener (port 6380), with the
// table's rows answering there too.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
