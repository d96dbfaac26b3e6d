// Package server is chapter 20's server: chapter 19's, whose commands are
// rows of one table (cmdtable.go), from which the book's listener reads
// each command's name, handler and arity.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
