package server

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"example.com/byor/ch38_blocking/proto"
)

// The request path alone, without sockets: the bytes of a batch of
// pipelined requests go into a connection's read buffer, and the replies
// come out of its write buffer, through the chapter's own parsing,
// dispatch, key space and serialization. Nothing here depends on the
// scheduler or the network, so the figures move only with the code (and
// the processor). Chapters 14 to 23 share the benchmark's name and
// workloads, so benchstat compares them directly:
//
//	go test -run '^$' -bench Pipeline -count 10 ./server > new.txt
//	benchstat old.txt new.txt
//
// The figures per request: cpu-ns/req, the CPU time of the benchmark's
// thread, which other processes on a busy machine do not inflate (they
// take the processor away, which wall-clock time counts); ns/req, the
// wall-clock time; allocs/req. ns/op and allocs/op are per batch of
// pipeDepth requests.

const (
	pipeKeys  = 10_000 // string keys, and members of the sorted set
	pipeDepth = 16     // requests per batch, as loadgen -P 16 sends
)

// pipeBatch returns the requests of one batch of the workload, each on
// another key (or member) spread over the key space.
func pipeBatch(workload string) [][]string {
	var batch [][]string
	for i := range pipeDepth {
		k := i * 619 % pipeKeys
		key, member := fmt.Sprintf("key:%06d", k), fmt.Sprintf("m%06d", k)
		switch workload {
		case "get":
			batch = append(batch, []string{"get", key})
		case "set":
			batch = append(batch, []string{"set", key, "xyz"})
		case "zadd": // an existing member, same score: the common update
			batch = append(batch, []string{"zadd", "zs", fmt.Sprint(k), member})
		case "zquery": // the member and those after it: ten items, five pairs
			batch = append(batch, []string{"zquery", "zs", fmt.Sprint(k), member, "0", "10"})
		}
	}
	return batch
}

// pipeLoad fills the key space with pipeKeys string keys and a sorted set
// "zs" of as many members.
func pipeLoad(tb testing.TB) {
	resetData(tb)
	for k := range pipeKeys {
		run("set", fmt.Sprintf("key:%06d", k), "abc")
		run("zadd", "zs", fmt.Sprint(k), fmt.Sprintf("m%06d", k))
	}
}

// pipeFrame returns the bytes a client sends for batch: each request
// length-prefixed, back to back.
func pipeFrame(batch [][]string) []byte {
	var in []byte
	for _, cmd := range batch {
		body := proto.EncodeReq(cmd)
		in = binary.LittleEndian.AppendUint32(in, uint32(len(body)))
		in = append(in, body...)
	}
	return in
}

var pipeWorkloads = []string{"get", "set", "zadd", "zquery"}

// TestPipelineBatch checks what the benchmark runs: a batch through the
// connection's path gets the replies that each request gets on its own,
// and they are the replies wanted (a hit, not an error).
func TestPipelineBatch(t *testing.T) {
	for _, workload := range pipeWorkloads {
		pipeLoad(t)
		batch := pipeBatch(workload)
		var want []byte
		for _, cmd := range batch {
			reply := run(cmd...)
			want = binary.LittleEndian.AppendUint32(want, uint32(len(reply)))
			want = append(want, reply...)
		}
		got := pipeServe(pipeConn(), pipeFrame(batch), nil)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the batch's replies differ from the requests' own:\n got %q\nwant %q", workload, got, want)
		}
		first := run(batch[0]...)
		if wantFirst := map[string]string{
			"get":    string(proto.OutStr(nil, "abc")),
			"set":    string(proto.OutNil(nil)),
			"zadd":   string(proto.OutInt(nil, 0)),
			"zquery": string(proto.OutArr(nil, 10)),
		}[workload]; !strings.HasPrefix(first, wantFirst) {
			t.Errorf("%s: reply %q, want one starting %q", workload, first, wantFirst)
		}
	}
}

// BenchmarkPipeline measures the request path per workload (see above).
func BenchmarkPipeline(b *testing.B) {
	for _, workload := range pipeWorkloads {
		b.Run(workload, func(b *testing.B) {
			pipeLoad(b)
			in := pipeFrame(pipeBatch(workload))
			conn := pipeConn()
			out := make([]byte, 0, 64<<10)
			// One thread runs the loop, so its CPU clock counts all of it.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu0 := threadCPU()
			b.ReportAllocs()
			for b.Loop() {
				out = pipeServe(conn, in, out[:0])
			}
			cpu := threadCPU() - cpu0
			runtime.ReadMemStats(&after)
			reqs := float64(b.N * pipeDepth)
			b.ReportMetric(float64(cpu.Nanoseconds())/reqs, "cpu-ns/req")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reqs, "ns/req")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/reqs, "allocs/req")
		})
	}
}

// threadCPU returns the CPU time the calling thread has used so far.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

// pipeConn returns a connection for pipeServe, holding its buffers as a
// busy connection does.
func pipeConn() *conn {
	conn := newConn(-1)
	conn.testReadBuf()
	wbufReserve(conn)
	return conn
}

// testReadBuf returns the connection's read buffer, which it takes if it
// has none yet, as its first read would.
func (conn *conn) testReadBuf() []byte {
	if conn.rbuf == nil {
		inputHeld += kRBufSize
		conn.rbuf = make([]byte, kRBufSize)
	}
	return conn.rbuf
}

// pipeServe handles the requests in with tryOneRequest, as serveRequests
// does, and appends their replies to out. serveRequests sends all of them
// with one write; here the append to out stands for that write.
func pipeServe(conn *conn, in, out []byte) []byte {
	conn.rbufStart, conn.rbufEnd = 0, copy(conn.testReadBuf(), in)
	for tryOneRequest(conn) {
	}
	out = append(out, conn.wbuf...)
	conn.wbuf = conn.wbuf[:0]
	return out
}
