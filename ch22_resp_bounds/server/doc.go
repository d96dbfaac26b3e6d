// Package server is chapter 22's server: chapter 21's, whose RESP requests
// and replies grow geometrically within the budget of all connections'
// memory, with the work of a turn metered.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
