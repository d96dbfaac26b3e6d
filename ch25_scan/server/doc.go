// Package server is chapter 25's server: chapter 24's, with SCAN, whose
// cursor is a place in the key table's hash order and so survives its
// resizes.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
