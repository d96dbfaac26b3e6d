// Package server is chapter 27's server: chapter 26's, with the rest of the
// string commands, most of each its argument grammar (SET's options and its
// kin).
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
