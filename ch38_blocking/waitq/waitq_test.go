package waitq

import (
	"slices"
	"testing"
)

type client struct {
	name string
	q    Waiter[client]
}

func newClient(name string) *client {
	c := &client{name: name}
	c.q.Owner = c
	return c
}

func keys(ks ...string) [][]byte {
	b := make([][]byte, len(ks))
	for i, k := range ks {
		b[i] = []byte(k)
	}
	return b
}

func order(q *Queues[client], key string) []string {
	var names []string
	q.Each(key, func(c *client) bool { names = append(names, c.name); return true })
	return names
}

// TestQueues: each key's queue is in the order its waiters parked; a
// waiter named twice waits once; unparked, it leaves every queue, and a
// queue left empty is gone.
func TestQueues(t *testing.T) {
	var q Queues[client]
	a, b, c := newClient("a"), newClient("b"), newClient("c")
	q.Park(&a.q, keys("k1", "k2", "k1"))
	q.Park(&b.q, keys("k2"))
	q.Park(&c.q, keys("k1", "k3"))
	if got := a.q.Keys(); !slices.Equal(got, []string{"k1", "k2"}) {
		t.Errorf("a waits on %q, want k1 k2 once each", got)
	}
	for key, want := range map[string][]string{"k1": {"a", "c"}, "k2": {"a", "b"}, "k3": {"c"}} {
		if got := order(&q, key); !slices.Equal(got, want) {
			t.Errorf("queue of %s: %q, want %q", key, got, want)
		}
	}
	if h := q.Head("k2"); h != a {
		t.Errorf("head of k2: %v, want a", h)
	}
	if n := q.Unpark(&a.q); n != 2 {
		t.Errorf("a unparked from %d queues, want 2", n)
	}
	if h := q.Head("k2"); h != b {
		t.Errorf("head of k2 once a left: %v, want b", h)
	}
	if got := order(&q, "k1"); !slices.Equal(got, []string{"c"}) {
		t.Errorf("queue of k1 once a left: %q, want c", got)
	}
	q.Unpark(&c.q)
	if q.Waited("k1") || q.Waited("k3") || q.Head("k1") != nil || q.Len() != 1 {
		t.Errorf("k1 and k3 still waited on once c left (%d keys)", q.Len())
	}
	q.Park(&a.q, keys("k2")) // parked again: at the back
	if got := order(&q, "k2"); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("queue of k2: %q, want b a", got)
	}
}

// TestReady: keys come out in the order added, each once until taken; a
// key taken may be added again, after the others.
func TestReady(t *testing.T) {
	var r Ready
	for _, k := range []string{"a", "b", "a", "c"} {
		r.Add(k)
	}
	if got := r.Keys(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("ready %q, want a b c", got)
	}
	var got []string
	for k, ok := r.Take(); ok && len(got) < 10; k, ok = r.Take() {
		got = append(got, k)
		if len(got) == 1 {
			r.Add("a") // made ready again while being served
			r.Add("d")
		}
	}
	if want := []string{"a", "b", "c", "a", "d"}; !slices.Equal(got, want) {
		t.Errorf("taken %q, want %q", got, want)
	}
	if r.Len() != 0 {
		t.Errorf("%d left", r.Len())
	}
}
