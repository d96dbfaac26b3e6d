// Package hashtable is the book's chaining hashtable, whose size is a power
// of two, grown by progressive resizing so that no single request pays for
// moving every node at once. In this chapter it no longer holds the key
// space (package keytable does); it indexes the members of each sorted set
// by name and the fields of each hash.
//
// Clients choose those names, so they are hashed with Hash, keyed by a seed
// chosen when the process starts, and not with the book's StrHash, whose
// collisions anyone can compute; and each table mixes the codes with a salt
// of its own before it picks a bucket.
//
// The structure is intrusive. The caller embeds an HNode in its own value
// (a member, a field) instead of the table allocating a cell per key, and
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
//	e.node.HCode = hashtable.Hash(k)
//	db.Insert(&e.node)
//	...
//	ent := node.Owner // where C writes container_of(node, Entry, node)
//
// Every data structure in this project uses the same idiom, so a value can
// be a member of several of them at once at the cost of one pointer per
// membership.
package hashtable
