// Package server is chapter 30's server: chapter 29's, with the rest of the
// hash commands, and an order of a hash's fields that HSCAN resumes and
// HRANDFIELD picks from.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
