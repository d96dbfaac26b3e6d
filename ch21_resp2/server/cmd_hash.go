package server

// The hash commands (chapter 16's, which already have Redis's semantics
// and names): the book's functions, answered in RESP.

// respHash runs fn, a hash command of chapter 16, on the RESP listener.
func respHash(fn func(cmd []string, w replyWriter)) respHandler {
	return func(st *respState, w *respWriter, args [][]byte) { fn(hashArgs(args), w) }
}
