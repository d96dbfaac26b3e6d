// Package hostile holds tests that run whole chapter servers against
// hostile or careless clients: too many connections for the server's file
// descriptors, replies nobody reads, huge requests, and so on. It has no
// code of its own; see the _test.go files, one per class of attack (hash
// flooding, work bounds, transactions, connections and memory, persistence,
// each chapter's commands), beside the helpers they share. It is one of the
// heavy suites, which go test skips unless BYOR_HEAVY=1 (see testkit.Heavy):
//
//	BYOR_HEAVY=1 go test example.com/byor/tools/hostile
package hostile
