package server

// The string commands: GET, and SET as Redis answers it.

// respGet: GET key is the book's get, answered in RESP.
func respGet(st *respState, w *respWriter, args [][]byte) { doGet(args, w) }

// respSet: SET key value is the book's set, which replies nil; Redis's
// replies OK, and clients check for it.
func respSet(st *respState, w *respWriter, args [][]byte) {
	at := w.size()
	doSet(args, w)
	if w.size() > at && w.buf[at] == '$' { // the book's nil: it was set
		w.truncate(at)
		w.simple("OK")
	}
}
