// Package server is chapter 24's server: chapter 23's, with Redis's command
// set over RESP: the key space's commands, SET with its options, ZADD with
// its options, ZCARD, ZRANGE and HSET of many fields, with Redis 7.0's
// replies and errors.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
