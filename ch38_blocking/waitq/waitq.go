// Package waitq keeps the clients that wait for keys, as a server that
// blocks clients on keys needs: a queue per key, first come first served,
// and the keys made ready since they were last served, in the order they
// became ready, each once.
//
// A waiter waits on several keys at once and is in each one's queue; it
// is served from whichever becomes ready first, and then leaves them all.
// Parking and unparking cost one step per key of the waiter; finding a
// key's first waiter costs one step, however many wait: nothing here
// walks the waiters of a key that did not change.
package waitq

import "example.com/byor/ch38_blocking/dlist"

// Waiter is a waiter's place in the queues: embed it in the waiter and
// set Owner to the waiter.
type Waiter[T any] struct {
	Owner *T
	// keys are the keys it waits on, each once, and nodes its place in
	// each one's queue, in the same order.
	keys  []string
	nodes []dlist.DList[Waiter[T]]
}

// Keys returns the keys w waits on, each once, in the order given.
func (w *Waiter[T]) Keys() []string { return w.keys }

// Queues maps each key waited on to its queue of waiters, the first
// parked first. The zero value is empty and ready to use.
type Queues[T any] struct {
	byKey map[string]*dlist.DList[Waiter[T]]
}

// Park puts w at the back of the queue of each of keys, each once, and
// returns how many keys it looked at.
func (q *Queues[T]) Park(w *Waiter[T], keys [][]byte) int {
	// exercise: ch38-waitq
	if q.byKey == nil {
		q.byKey = map[string]*dlist.DList[Waiter[T]]{}
	}
	w.keys = make([]string, 0, len(keys))
	w.nodes = make([]dlist.DList[Waiter[T]], len(keys)) // never grown: they are linked
	var seen map[string]bool
	if len(keys) > 1 {
		seen = make(map[string]bool, len(keys))
	}
	for _, key := range keys {
		if seen[string(key)] {
			continue // BLPOP a a waits on a once
		}
		k := string(key)
		if seen != nil {
			seen[k] = true
		}
		head := q.byKey[k]
		if head == nil {
			head = &dlist.DList[Waiter[T]]{}
			head.Init()
			q.byKey[k] = head
		}
		node := &w.nodes[len(w.keys)]
		node.Owner = w
		head.InsertBefore(node)
		w.keys = append(w.keys, k)
	}
	return len(keys)
	// end exercise: ch38-waitq
}

// Unpark takes w out of every queue it is in, and returns how many.
func (q *Queues[T]) Unpark(w *Waiter[T]) int {
	n, _ := q.UnparkSome(w, len(w.keys))
	return n
}

// UnparkSome takes w out of at most n of its queues, its last keys first,
// and returns how many, and whether it is now out of every queue.
func (q *Queues[T]) UnparkSome(w *Waiter[T], n int) (int, bool) {
	// exercise: ch38-waitq
	i := len(w.keys)
	for ; i > 0 && len(w.keys)-i < n; i-- {
		w.nodes[i-1].Detach()
		if k := w.keys[i-1]; q.byKey[k].Empty() {
			delete(q.byKey, k)
		}
	}
	done := len(w.keys) - i
	w.keys, w.nodes = w.keys[:i], w.nodes[:i] // the rest stay where they are linked
	return done, i == 0
	// end exercise: ch38-waitq
}

// Head returns the first waiter of key's queue, nil if none waits on it.
func (q *Queues[T]) Head(key string) *T {
	if head := q.byKey[key]; head != nil {
		return head.Next().Owner.Owner
	}
	return nil
}

// Waited reports whether some waiter waits on key.
func (q *Queues[T]) Waited(key string) bool { return q.byKey[key] != nil }

// Len returns how many keys are waited on.
func (q *Queues[T]) Len() int { return len(q.byKey) }

// Each calls fn with each waiter of key's queue, first to last, until fn
// returns false (a walk of them all: for tools and tests).
func (q *Queues[T]) Each(key string, fn func(*T) bool) {
	head := q.byKey[key]
	if head == nil {
		return
	}
	for n := head.Next(); n != head; n = n.Next() {
		if !fn(n.Owner.Owner) {
			return
		}
	}
}

// WaitedKeys calls fn with each key waited on, in no order.
func (q *Queues[T]) WaitedKeys(fn func(key string)) {
	for k := range q.byKey {
		fn(k)
	}
}

// Ready holds keys made ready, in the order they were, each once until it
// is taken. The zero value is empty and ready to use.
type Ready struct {
	keys []string
	next int
	in   map[string]bool
}

// Add adds key, unless it is there already, not yet taken.
func (r *Ready) Add(key string) {
	if r.in[key] {
		return
	}
	if r.in == nil {
		r.in = map[string]bool{}
	}
	r.in[key] = true
	r.keys = append(r.keys, key)
}

// Len returns how many keys wait to be taken.
func (r *Ready) Len() int { return len(r.keys) - r.next }

// Take returns the first key not yet taken; false if none. A key taken may
// be added again, after those added before it.
func (r *Ready) Take() (string, bool) {
	if r.next == len(r.keys) {
		clear(r.keys)
		r.keys, r.next = r.keys[:0], 0
		return "", false
	}
	key := r.keys[r.next]
	r.next++
	delete(r.in, key)
	return key, true
}

// Keys returns the keys not yet taken, in order (for tools and tests).
func (r *Ready) Keys() []string { return r.keys[r.next:] }
