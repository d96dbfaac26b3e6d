// Package server is chapter 31's server: chapter 30's, with the sorted
// sets' ranges, by rank, score and name, read from the AVL tree with
// subtree counts.
//
// The chapter's README says what it changes and why, file by file;
// its LESSON file lists them in the order of the lesson.
package server
