// Package server is chapter 32's server: chapter 31's, with the sorted
// sets' pops and their algebra (ZUNION, ZINTER, ZDIFF and their STORE
// forms).
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
