// Package server is chapter 29's server: chapter 28's, with the generic key
// commands (RENAME, COPY, RANDOMKEY, OBJECT, MEMORY USAGE), which work on a
// key whatever it holds.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
