// Package server is chapter 23's server: chapter 22's, whose RESP listener
// answers what clients and tools send as they connect (HELLO and RESP3,
// AUTH, CLIENT, CONFIG GET, COMMAND).
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
