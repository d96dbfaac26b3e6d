package server

// TYPE: what tools ask a server about its keys.

// respType: TYPE key replies the kind of value the key holds, or none.
func respType(st *respState, w *respWriter, args [][]byte) {
	w.simple(typeName(lookupEntry(args[1])))
}
