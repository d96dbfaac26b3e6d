package server

import (
	"strconv"
	"testing"
)

// BenchmarkMemberWork calibrates kMemberWork: what one member or field
// costs a command that inserts, updates, removes or visits it, in a set or
// a hash of a thousand members and of a million, against the work unit's
// 50 to 100 ns (kWorkBytes bytes copied). Each operation is one command of
// kBatch members; ns/member is its time over kBatch, units/member what
// the meter charged for each.
func BenchmarkMemberWork(b *testing.B) {
	const kBatch = 1000
	for _, size := range []int{1000, 1_000_000} {
		for _, op := range []string{"zadd-new", "zadd-update", "zrem", "zrange", "hset-new", "hdel"} {
			b.Run(op+"/"+strconv.Itoa(size), func(b *testing.B) {
				resetData(b)
				saved := maxOutputTotal
				b.Cleanup(func() { maxOutputTotal = saved })
				maxOutputTotal = 1 << 30
				a := newBenchClient()
				key, kind := "z", "ZADD"
				if op[0] == 'h' {
					key, kind = "h", "HSET"
				}
				// fill adds members from to to (exclusive), kBatch a command.
				fill := func(from, to, score int) {
					for i := from; i < to; i += kBatch {
						args := []string{kind, key}
						for j := i; j < min(i+kBatch, to); j++ {
							if kind == "ZADD" {
								args = append(args, strconv.Itoa(j+score), "m"+strconv.Itoa(j))
							} else {
								args = append(args, "f"+strconv.Itoa(j), strconv.Itoa(j))
							}
						}
						a.run(args...)
					}
				}
				fill(0, size, 0)
				batch := func(cmd string, from int, score int) []string {
					args := []string{cmd, key}
					for j := from; j < from+kBatch; j++ {
						switch cmd {
						case "ZADD":
							args = append(args, strconv.Itoa(j+score), "m"+strconv.Itoa(j))
						case "HSET":
							args = append(args, "f"+strconv.Itoa(j), "x")
						case "ZREM":
							args = append(args, "m"+strconv.Itoa(j))
						case "HDEL":
							args = append(args, "f"+strconv.Itoa(j))
						}
					}
					return args
				}
				units := 0
				b.ResetTimer()
				for i := range b.N {
					var args []string
					from := (i * kBatch) % (size - kBatch + 1)
					switch op {
					case "zadd-new":
						args = batch("ZADD", size+i*kBatch, 0)
					case "zadd-update":
						args = batch("ZADD", from, i+1)
					case "zrem":
						args = batch("ZREM", from, 0)
					case "hdel":
						args = batch("HDEL", from, 0)
					case "hset-new":
						args = batch("HSET", size+i*kBatch, 0)
					case "zrange":
						args = []string{"ZRANGE", key, strconv.Itoa(from), strconv.Itoa(from + kBatch - 1), "WITHSCORES"}
					}
					before := workDone
					a.run(args...)
					units += workDone - before
					if op == "zrem" || op == "hdel" {
						b.StopTimer()
						fill(from, from+kBatch, 0) // put them back
						b.StartTimer()
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*kBatch), "ns/member")
				b.ReportMetric(float64(units)/float64(b.N*kBatch), "units/member")
			})
		}
	}
}

// benchClient runs RESP commands in the process, as txClient does.
type benchClient struct {
	st *respState
	c  *conn
}

func newBenchClient() *benchClient {
	st := newRESPState(nil)
	c := newConn(-1)
	c.framing = st
	return &benchClient{st, c}
}

func (bc *benchClient) run(args ...string) {
	cmd := make([][]byte, len(args))
	for i, a := range args {
		cmd[i] = []byte(a)
	}
	workDone += len(cmd) // as oneRequest charges; respDo charges the bytes
	bc.st.w.begin(nil)
	respDo(bc.c, bc.st, cmd)
}
