// Package server is chapter 34's server: chapter 33's, with RDB files: SAVE
// writes the key space in Redis's format, and a file real Redis wrote loads
// at start.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
