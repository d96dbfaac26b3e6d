package server

import (
	"example.com/byor/ch10_avl/hashtable"
	"example.com/byor/ch10_avl/proto"
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

// doRequest runs one command and appends its serialized reply to out.
func doRequest(cmd []string, out []byte) []byte {
	switch {
	case len(cmd) == 1 && cmdIs(cmd[0], "keys"):
		return doKeys(cmd, out)
	case len(cmd) == 2 && cmdIs(cmd[0], "get"):
		return doGet(cmd, out)
	case len(cmd) == 3 && cmdIs(cmd[0], "set"):
		return doSet(cmd, out)
	case len(cmd) == 2 && cmdIs(cmd[0], "del"):
		return doDel(cmd, out)
	default:
		// An unknown name, or a known one with the wrong number of arguments.
		return proto.OutErr(out, proto.CodeUnknown, "Unknown cmd")
	}
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

func doGet(cmd []string, out []byte) []byte {
	node := gData.db.Lookup(&lookupKey(cmd[1]).node, entryEq)
	if node == nil {
		return proto.OutNil(out)
	}
	return proto.OutStr(out, node.Owner.val)
}

func doSet(cmd []string, out []byte) []byte {
	key := lookupKey(cmd[1])
	if node := gData.db.Lookup(&key.node, entryEq); node != nil {
		node.Owner.val = cmd[2]
	} else {
		key.val = cmd[2]
		gData.db.Insert(&key.node)
	}
	return proto.OutNil(out)
}

// doDel replies 1 if the key existed, else 0.
func doDel(cmd []string, out []byte) []byte {
	node := gData.db.Pop(&lookupKey(cmd[1]).node, entryEq)
	if node == nil {
		return proto.OutInt(out, 0)
	}
	return proto.OutInt(out, 1)
}

// doKeys replies with every key, as an array of strings.
func doKeys(cmd []string, out []byte) []byte {
	out = proto.OutArr(out, uint32(gData.db.Size()))
	gData.db.Scan(func(node *hashtable.HNode[entry]) {
		out = proto.OutStr(out, node.Owner.key)
	})
	return out
}
