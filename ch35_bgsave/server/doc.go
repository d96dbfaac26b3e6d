// Package server is chapter 35's server: chapter 34's, whose snapshots
// (BGSAVE, the save rules, the save at shutdown) are written while it keeps
// serving, with no fork.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
