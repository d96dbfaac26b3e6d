package redissuite

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"example.com/byor/testkit"
)

// fakeRuntest stands for Redis's runtest: it writes its arguments, then
// for the file after --single one test passed and one failed, as
// runtest prints them (the failure's first message line cut short, as
// the harness prints some).
const fakeRuntest = `#!/usr/bin/env bash
echo "args: $*"
while [ $# -gt 0 ]; do
	if [ "$1" = --single ]; then f=$2; fi
	shift
done
echo "[ok]: $f works (0 ms)"
echo "[err]: $f breaks in tests/$f.tcl"
echo "n command 'lpush'"
echo "ERR unknown command 'lpush'"
echo "    while executing"
`

// tree is a fake Redis source tree: runtest, and the lines of the
// suite's files that the script changes, with others it must leave.
var tree = map[string]string{
	"runtest":                  fakeRuntest,
	"tests/support/server.tcl": "proc run_external {} {\n    r function flush\n}\n",
	"tests/support/test.tcl":   "proc assert_encoding {enc key} {\n    assert_match $enc [r object encoding $key]\n}\n",
	"tests/unit/type/hash.tcl": "    r config set hash-max-ziplist-entries 16\n" +
		"    set old [lindex [r config get zset-max-listpack-entries] 1]\n" +
		"    r config set maxmemory 10\n" +
		"    r config set list-max-ziplist-size [\n",
}

// Want, in the copy the suite runs from: the flush and the encodings'
// settings may fail, assert_encoding checks nothing; the rest as it was.
var want = map[string]string{
	"tests/support/server.tcl": "proc run_external {} {\n    catch {r function flush}\n}\n",
	"tests/support/test.tcl":   "proc assert_encoding {enc key} {\n    return\n    assert_match $enc [r object encoding $key]\n}\n",
	"tests/unit/type/hash.tcl": "    catch {r config set hash-max-ziplist-entries 16}\n" +
		"    catch {set old [lindex [r config get zset-max-listpack-entries] 1]}\n" +
		"    r config set maxmemory 10\n" +
		"    r config set list-max-ziplist-size [\n",
}

// script returns the command running tools/redis-suite.sh with args, with
// OUT set to out and a tclsh on its path (the fake runtest needs none).
func script(t *testing.T, out string, args ...string) *exec.Cmd {
	t.Helper()
	bin := t.TempDir()
	testkit.WriteFiles(t, bin, map[string]string{"tclsh": "#!/bin/sh\n"})
	if err := os.Chmod(filepath.Join(bin, "tclsh"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{filepath.Join("..", "redis-suite.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "OUT="+out, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

func TestRedisSuiteScript(t *testing.T) {
	for _, tool := range []string{"bash", "perl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	src, out := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, src, tree)
	if err := os.Chmod(filepath.Join(src, "runtest"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := script(t, out, src, "6999", "unit/type/hash", "unit/keyspace")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s%s", err, got, stderr.String())
	}
	wantOut := "unit/type/hash           passed    1  failed    1\n" +
		"unit/keyspace            passed    1  failed    1\n" +
		"all                      passed    2  failed    2\n" +
		"unit/type/hash: [err]: unit/type/hash breaks\n" +
		"    ERR unknown command 'lpush'\n" +
		"unit/keyspace: [err]: unit/keyspace breaks\n" +
		"    ERR unknown command 'lpush'\n" +
		"logs: " + out + "\n"
	if string(got) != wantOut {
		t.Errorf("output:\n%s\nwant:\n%s", got, wantOut)
	}
	for name, w := range want {
		b, err := os.ReadFile(filepath.Join(out, "suite", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != w {
			t.Errorf("the copy's %s:\n%s\nwant:\n%s", name, b, w)
		}
		if b, _ := os.ReadFile(filepath.Join(src, name)); string(b) != tree[name] {
			t.Errorf("the source tree's %s was changed:\n%s", name, b)
		}
	}
	log, err := os.ReadFile(filepath.Join(out, "unit_type_hash.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--host 127.0.0.1 --port 6999", "--single unit/type/hash", "--singledb", "--durable", "--tags -needs:debug"} {
		if !strings.Contains(string(log), flag) {
			t.Errorf("runtest was not given %q: %s", flag, log)
		}
	}
}

// TestRedisSuiteUsage: a missing argument, a port that is no number, or a
// folder that is not a Redis source tree stops the script with status 2
// and a line that says so.
func TestRedisSuiteUsage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skipf("no bash: %v", err)
	}
	notTree := t.TempDir()
	for _, c := range []struct {
		args []string
		says string
	}{
		{nil, "usage: tools/redis-suite.sh REDIS_SRC PORT"},
		{[]string{notTree}, "usage:"},
		{[]string{notTree, "63x9"}, "PORT must be a number"},
		{[]string{notTree, "6999"}, "not a Redis source tree"},
	} {
		var stderr bytes.Buffer
		cmd := script(t, t.TempDir(), c.args...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("%q: %v, stderr %q; want exit status 2 and %q", c.args, err, stderr.String(), c.says)
		}
	}
}
