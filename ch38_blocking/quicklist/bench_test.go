package quicklist

import (
	"runtime"
	"strconv"
	"testing"
)

// naive is the list the guide compares with: one allocation per element,
// linked both ways.
type naive struct {
	prev, next *naive
	v          string
}

const benchN = 1_000_000

// heapAfter returns the bytes the heap grew by while build ran, with
// what build returned still alive.
func heapAfter(build func() any) (int, any) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	keep := build()
	runtime.GC()
	runtime.ReadMemStats(&b)
	return int(b.HeapAlloc) - int(a.HeapAlloc), keep
}

// TestBytesPerElement reports what an element of 10 bytes costs in each
// list (go test -v -run TestBytesPerElement): the guide's figures. It
// checks only that the packed list is the smaller.
func TestBytesPerElement(t *testing.T) {
	packed, keep1 := heapAfter(func() any {
		var l List
		for i := 0; i < benchN; i++ {
			l.PushTail([]byte("job-" + strconv.Itoa(100000+i%900000)))
		}
		return &l
	})
	linked, keep2 := heapAfter(func() any {
		var head, tail *naive
		for i := 0; i < benchN; i++ {
			n := &naive{prev: tail, v: "job-" + strconv.Itoa(100000+i%900000)}
			if tail == nil {
				head = n
			} else {
				tail.next = n
			}
			tail = n
		}
		return head
	})
	t.Logf("%d elements of 10 bytes: quicklist %.1f bytes each (%d nodes), one node per element %.1f",
		benchN, float64(packed)/benchN, keep1.(*List).Nodes(), float64(linked)/benchN)
	runtime.KeepAlive(keep2)
	if packed >= linked {
		t.Errorf("packed %d bytes, linked %d", packed, linked)
	}
}

func benchList() *List {
	var l List
	for i := 0; i < benchN; i++ {
		l.PushTail([]byte("job-" + strconv.Itoa(100000+i%900000)))
	}
	return &l
}

// BenchmarkIndexMiddle: LINDEX of the middle element, a hop per node and
// then a walk within one, against a hop per element.
func BenchmarkIndexMiddle(b *testing.B) {
	l := benchList()
	b.Run("quicklist", func(b *testing.B) {
		for b.Loop() {
			l.Seek(benchN / 2)
		}
	})
	var head *naive
	for i := 0; i < benchN; i++ {
		head = &naive{next: head, v: "x"}
	}
	b.Run("linked", func(b *testing.B) {
		for b.Loop() {
			n := head
			for i := 0; i < benchN/2; i++ {
				n = n.next
			}
			_ = n
		}
	})
}

// BenchmarkInsertMiddle: LINSERT in the middle, the walk there and one
// node's bytes moved up.
func BenchmarkInsertMiddle(b *testing.B) {
	l := benchList()
	for b.Loop() {
		it, _ := l.Seek(benchN / 2)
		l.Insert(it, []byte("new"), false)
	}
}

// BenchmarkTrimHalf: LTRIM dropping half of a list, whole nodes unlinked.
func BenchmarkTrimHalf(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		l := benchList()
		b.StartTimer()
		l.Delete(true, benchN/2)
	}
}
