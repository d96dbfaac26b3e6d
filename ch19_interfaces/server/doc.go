// Package server is chapter 19's server: chapter 18's, whose commands write
// their replies through a replyWriter and whose connections read their
// requests through a framing, so that a second protocol can use both (no
// new behaviour).
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
