// Package hashtable is the key space of the server: a chaining hashtable
// whose size is a power of two, grown by progressive resizing so that no
// single request pays for moving every key at once.
//
// The structure is intrusive. The caller embeds an HNode in its own value
// (the server's entry) instead of the table allocating a cell per key, and
// the table only links those nodes together; it never owns or copies the
// values. C recovers the enclosing value from a node with container_of,
// which needs pointer arithmetic. Go cannot do that without unsafe, so the
// node is generic over its container and carries a typed back-pointer,
// Owner, set once when the container is created:
//
//	type entry struct {
//		node     hashtable.HNode[entry]
//		key, val string
//	}
//
//	e := &entry{key: k, val: v}
//	e.node.Owner = e
//	e.node.HCode = hashtable.StrHash(k)
//	db.Insert(&e.node)
//	...
//	ent := node.Owner // where C writes container_of(node, Entry, node)
//
// Every data structure in this project uses the same idiom, so a value can
// be a member of several of them at once at the cost of one pointer per
// membership.
package hashtable
