package server

import (
	"fmt"
	"runtime"
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// BenchmarkRESPPipeline is BenchmarkPipeline on the RESP listener's path:
// a batch of pipeDepth requests in the connection's read buffer, parsed,
// run and answered by oneRequest, without sockets. Each workload runs
// twice: "served", each request answered as the turn reaches it; and
// "ready", each request first found whole by requestReady, as a request
// left over from the turn before is (see connectionIO and connEvents).
func BenchmarkRESPPipeline(b *testing.B) {
	workloads := map[string]func(i int) []string{
		"get": func(i int) []string { return []string{"GET", fmt.Sprintf("key:%06d", i*619%pipeKeys)} },
		"set": func(i int) []string { return []string{"SET", fmt.Sprintf("key:%06d", i*619%pipeKeys), "xyz"} },
		"exists-40": func(i int) []string {
			cmd := []string{"EXISTS"}
			for j := range 40 {
				cmd = append(cmd, fmt.Sprintf("key:%06d", (i*40+j)*619%pipeKeys))
			}
			return cmd
		},
	}
	for _, name := range []string{"get", "set", "exists-40"} {
		var in []byte
		for i := range pipeDepth {
			in = resp.AppendRequest(in, workloads[name](i)...)
		}
		for _, ready := range []bool{false, true} {
			mode := "served"
			if ready {
				mode = "ready"
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				pipeLoad(b)
				conn := pipeConn()
				st := newRESPState(conn)
				conn.framing = st
				inputHeld += kRESPBufSize
				st.buf = make([]byte, 0, kRESPBufSize)
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				cpu0 := threadCPU()
				b.ReportAllocs()
				for b.Loop() {
					st.buf, st.start = append(st.buf[:0], in...), 0
					for (!ready || st.requestReady(conn)) && st.oneRequest(conn) {
					}
					if st.start != len(st.buf) {
						b.Fatalf("%d bytes of the batch not handled", len(st.buf)-st.start)
					}
					conn.wbuf = conn.wbuf[:0]
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
}
