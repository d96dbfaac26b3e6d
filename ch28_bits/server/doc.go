// Package server is chapter 28's server: chapter 27's, with the bit
// commands and LCS, whose work their request does not show, charged as it
// is done.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
