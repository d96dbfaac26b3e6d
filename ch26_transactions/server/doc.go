// Package server is chapter 26's server: chapter 25's, with transactions on
// the one event loop (MULTI, EXEC, DISCARD, WATCH) and INFO.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
