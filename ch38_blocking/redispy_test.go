package chapter_test

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"example.com/byor/testkit"
)

// redisPython returns a Python that can import redis-py, the Python
// client most programs use: the first python3 on the PATH (often a
// virtual environment or pyenv's), else the system's. The test is skipped
// where neither has it (Debian: apt-get install python3-redis).
func redisPython(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		py, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if exec.Command(py, "-c", "import redis").Run() == nil {
			return py
		}
	}
	t.Skip("no python3 here can import redis (apt-get install python3-redis): redis-py not tested")
	return ""
}

// TestRedisPyTransactions runs testdata/redispy/tx.py against the server:
// redis-py's pipeline(transaction=True), a runtime error and a queueing
// error inside one, and WATCH with another client's write in between,
// which redis-py reports as WatchError.
func TestRedisPyTransactions(t *testing.T) {
	py := redisPython(t)
	p := testkit.StartTestServer(t)
	addr, err := respAddr(p)
	if err != nil {
		t.Fatal(err)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	// The deadline only guards against a hang.
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(60*time.Second))
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "testdata/redispy/tx.py", host, port).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("%s testdata/redispy/tx.py: %v\n%s", py, err, out)
	}
}
