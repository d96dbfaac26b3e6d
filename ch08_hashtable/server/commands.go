package server

import (
	"example.com/byor/ch08_hashtable/hashtable"
	"example.com/byor/ch08_hashtable/proto"
)

// gData is the server's global state: the key space, now the book's own
// hashtable instead of a Go map.
var gData struct {
	db hashtable.HMap[entry]
}

// entry is one key and its value. The hashtable links entries through the
// embedded node; node.Owner points back here (see package hashtable).
type entry struct {
	node hashtable.HNode[entry]
	key  string
	val  string
}

// entryEq is the hashtable's equality callback. Comparing the cached
// hashes first skips most string comparisons.
func entryEq(lhs, rhs *hashtable.HNode[entry]) bool {
	return lhs.HCode == rhs.HCode && lhs.Owner.key == rhs.Owner.key
}

// lookupKey returns a new entry holding only a key and its hash: enough
// for the hashtable to find the real entry, and the start of a new one
// when the key is absent.
func lookupKey(key string) *entry {
	k := &entry{key: key}
	k.node.Owner = k
	k.node.HCode = hashtable.StrHash(key)
	return k
}

// doRequest parses one request and runs it, writing the reply data into
// res. It returns the reply's status code and data length, or an error for
// a malformed request, which ends the connection.
func doRequest(req []byte, res []byte) (rescode uint32, reslen int, err error) {
	cmd, err := proto.ParseReq(req)
	if err != nil {
		msg("bad req: %v", err)
		return 0, 0, err
	}
	switch {
	case len(cmd) == 2 && cmdIs(cmd[0], "get"):
		rescode, reslen = doGet(cmd, res)
	case len(cmd) == 3 && cmdIs(cmd[0], "set"):
		rescode, reslen = doSet(cmd, res)
	case len(cmd) == 2 && cmdIs(cmd[0], "del"):
		rescode, reslen = doDel(cmd, res)
	default:
		// An unknown name, or a known one with the wrong number of arguments.
		rescode, reslen = proto.ResErr, copy(res, "Unknown cmd")
	}
	return rescode, reslen, nil
}

// cmdIs compares command names as the book's strcasecmp does: the ASCII
// letters A-Z match a-z, and every other byte matches only itself.
// strings.EqualFold would also fold Unicode, and run set for "\u017fet"
// (a long s) or keys for "\u212aeys" (the Kelvin sign). Unlike strcasecmp,
// which stops at a NUL, the whole name counts: "get\x00" is not get.
func cmdIs(word, cmd string) bool {
	if len(word) != len(cmd) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if asciiLower(word[i]) != asciiLower(cmd[i]) {
			return false
		}
	}
	return true
}

// asciiLower lowers an ASCII capital letter and returns any other byte as
// it is.
func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func doGet(cmd []string, res []byte) (uint32, int) {
	node := gData.db.Lookup(&lookupKey(cmd[1]).node, entryEq)
	if node == nil {
		return proto.ResNX, 0
	}
	// A value arrived inside a request, so it always fits in a reply.
	return proto.ResOK, copy(res, node.Owner.val)
}

func doSet(cmd []string, res []byte) (uint32, int) {
	key := lookupKey(cmd[1])
	if node := gData.db.Lookup(&key.node, entryEq); node != nil {
		node.Owner.val = cmd[2]
	} else {
		key.val = cmd[2]
		gData.db.Insert(&key.node)
	}
	return proto.ResOK, 0
}

func doDel(cmd []string, res []byte) (uint32, int) {
	gData.db.Pop(&lookupKey(cmd[1]).node, entryEq)
	return proto.ResOK, 0
}
