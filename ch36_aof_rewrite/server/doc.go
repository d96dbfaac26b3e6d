// Package server is chapter 36's server: chapter 35's, whose append-only
// log is rewritten from the key space, while it keeps serving, when it
// grows (BGREWRITEAOF).
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
