package docgen

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// console wraps lines in the fence RenderSession produces.
func console(lines ...string) string {
	return "```console\n" + strings.Join(lines, "\n") + "\n```\n"
}

// renderSessionTests are scripts and the sessions RenderSession shows for
// them.
var renderSessionTests = []struct {
	name, script, want string
}{{
	name: "cmp stdout shows the archive's file",
	script: `startserver
exec client -addr $ADDR get k
cmp stdout nx.out
exec client -addr $ADDR keys
cmp stdout keys.out
stopserver

-- nx.out --
server says: [2] 
-- keys.out --
(arr) len=1
(str) k
(arr) end
`,
	want: console(
		"$ bin/client get k",
		"server says: [2] ",
		"$ bin/client keys",
		"(arr) len=1",
		"(str) k",
		"(arr) end",
	),
}, {
	name: "redis-cli is shown on the default RESP port",
	script: `startserver
exec redis-cli --no-raw -p $RESP_PORT set k 'a b'
cmpvary -text stdout 'OK'
exec redis-cli -3 --raw -h $RESP_HOST -p $RESP_PORT get k
cmp stdout get.out
exec client -addr $ADDR get k
cmpvary -text stdout '(str) a b'

-- get.out --
a b
`,
	want: console(
		"$ redis-cli -p 6380 set k 'a b'",
		"OK",
		"$ redis-cli -3 --raw -p 6380 get k",
		"a b",
		"$ bin/client get k",
		"(str) a b",
	),
}, {
	name: "stdin is shown as a here-document, under the comments above it",
	script: `startserver
# A transaction, on one connection.
stdin tx.txt
exec redis-cli --no-raw -p $RESP_PORT
cmp stdout tx.out
stdin none.txt
exec redis-cli --no-raw -p $RESP_PORT get k
cmpvary -text stdout '"v"'

-- none.txt --
-- tx.txt --
MULTI
SET k v
EXEC
-- tx.out --
OK
QUEUED
OK
`,
	want: console(
		"# A transaction, on one connection.",
		"$ redis-cli -p 6380 <<'EOF'",
		"MULTI",
		"SET k v",
		"EXEC",
		"EOF",
		"OK",
		"QUEUED",
		"OK",
		"$ redis-cli -p 6380 get k",
		`"v"`,
	),
}, {
	name: "redis-cli --no-raw is shown as typed at a terminal",
	script: `startserver
exec redis-cli --no-raw -p $RESP_PORT get k
cmpvary -text stdout '"a b"'
exec redis-cli -3 --no-raw -h $RESP_HOST -p $RESP_PORT get nokey
cmpvary -text stdout '(nil)'
exec redis-cli -p $RESP_PORT --raw get k
cmpvary -text stdout 'a b'
`,
	want: console(
		"$ redis-cli -p 6380 get k",
		`"a b"`,
		"$ redis-cli -3 -p 6380 get nokey",
		"(nil)",
		"$ redis-cli -p 6380 --raw get k",
		"a b",
	),
}, {
	name: "cmpvary shows placeholders as <name>, pattern checks add nothing",
	script: `startserver
exec client -addr $ADDR zscore z n
cmpvary -text stdout '(dbl) 1.5'
stdout '^\(dbl\) 1\.5$'
exec client -addr $ADDR pttl k
cmpvary -text stdout '(int) «ms=9\d{4}|100000»'
exec client -addr $ADDR hpttl h FIELDS 2 a b
cmpvary stdout ttls.out
exec client -addr $ADDR keys
cmpvary -unordered stdout keys.out
! stdout '^\(nil\)$'
exec client -addr $ADDR set empty ''
! stdout .
exec client -addr $ADDR get empty
cmpvary -text stdout '(str) '

-- ttls.out --
(arr) len=2
(int) «ms=9\d{4}|100000»
(int) «at=\d+» and «b=x»
(arr) end
-- keys.out --
(arr) len=2
(str) a
(str) b
(arr) end
`,
	want: console(
		"$ bin/client zscore z n",
		"(dbl) 1.5",
		"$ bin/client pttl k",
		"(int) <ms>",
		"$ bin/client hpttl h FIELDS 2 a b",
		"(arr) len=2",
		"(int) <ms>",
		"(int) <at> and <b>",
		"(arr) end",
		"$ bin/client keys  "+UnorderedNote,
		"(arr) len=2",
		"(str) a",
		"(str) b",
		"(arr) end",
		"$ bin/client set empty ''",
		"$ bin/client get empty",
		"(str) ",
	),
}, {
	name: "a failing client shows its stdout and stderr",
	script: `! exec client -addr 127.0.0.1:1
! stdout .
cmpvary -text stderr 'client: connect: connection refused'
! exec client -nosuchflag
cmpvary -text stdout ''
cmp stderr usage.txt

-- usage.txt --
usage: client [-addr host:port] cmd...
`,
	want: console(
		"$ bin/client -addr 127.0.0.1:1",
		"client: connect: connection refused",
		"$ bin/client -nosuchflag",
		"usage: client [-addr host:port] cmd...",
	),
}, {
	name: "server commands and checks after them are left out",
	script: `! exec server -nosuchflag
stderr '^usage: server$'
startserver
exec client -addr $ADDR
cmp stdout hello.out
exec client -addr $ADDR set k v
! stdout .
waitlog ^EOF$
cmp stdout hello.out
stopserver
cmp stdout server.out

-- hello.out --
server says: hello
-- server.out --
client says: hello
`,
	want: console(
		"$ bin/client",
		"server says: hello",
		"$ bin/client set k v",
	),
}, {
	name: "comments directly above a client command are kept",
	script: `# The header describes the whole file.
startserver
exec client -addr $ADDR set k v
! stdout .

# Explains the next command,
# over two lines.
exec client -addr $ADDR get k
cmpvary -text stdout '(str) v'
# Above a server command: dropped.
stopserver
# Separated by a blank line: dropped.

startserver
# Explains del.
exec client -addr $ADDR del k
cmpvary -text stdout '(int) 1'
`,
	want: console(
		"$ bin/client set k v",
		"",
		"# Explains the next command,",
		"# over two lines.",
		"$ bin/client get k",
		"(str) v",
		"",
		"# Explains del.",
		"$ bin/client del k",
		"(int) 1",
	),
}, {
	name: "waitfor shows its command and the output compared after it",
	script: `exec client -addr $ADDR pexpire k 100
cmpvary -text stdout '(int) 1'
waitfor '^\(nil\)$' client -addr $ADDR get k
cmpvary -text stdout '(nil)'
waitfor '^x$' server -addr $ADDR
`,
	want: console(
		"$ bin/client pexpire k 100",
		"(int) 1",
		"$ bin/client get k",
		"(nil)",
	),
}, {
	name: "arguments are quoted as a shell user types them",
	script: `exec client -addr $ADDR set k 'a value with spaces'
! stdout .
exec client -addr $ADDR set empty ''
! stdout .
exec client -addr $ADDR set q 'it''s' # a trailing comment
! stdout .
exec client -addr $ADDR zquery z 1 '' 0 10
! stdout .
exec client -addr $ADDR set glob '*' -1 1.5
! stdout .
`,
	want: console(
		"$ bin/client set k 'a value with spaces'",
		"$ bin/client set empty ''",
		`$ bin/client set q 'it'\''s'`,
		"$ bin/client zquery z 1 '' 0 10",
		"$ bin/client set glob '*' -1 1.5",
	),
}, {
	name: "a redis-cli in the background shows its output where it was typed",
	script: `startserver
# In one terminal, a client waits:
exec redis-cli --no-raw -p $RESP_PORT blpop q 0 &worker&
waitfor 'blocked_clients:1' redis-cli -p $RESP_PORT info clients
# In another, a push serves it:
exec redis-cli --no-raw -p $RESP_PORT rpush q job
cmpvary -text stdout '(integer) 1'
wait worker
cmp stdout worker.out

-- worker.out --
1) "q"
2) "job"
`,
	want: console(
		"# In one terminal, a client waits:",
		"$ redis-cli -p 6380 blpop q 0",
		`1) "q"`,
		`2) "job"`,
		"",
		"# In another, a push serves it:",
		"$ redis-cli -p 6380 rpush q job",
		"(integer) 1",
	),
}}

func TestRenderSession(t *testing.T) {
	for _, tt := range renderSessionTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderSession([]byte(tt.script))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RenderSession (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderSessionErrors(t *testing.T) {
	tests := []struct{ name, script, want string }{
		{"cmp of a file the archive lacks", "exec client -addr $ADDR get k\ncmp stdout nx.out\n", "nx.out"},
		{"no client command", "startserver\nstopserver\n", "no client command"},
		{"unterminated quote", "exec client -addr $ADDR set k 'v\n", "unterminated"},
		{"cmpvary of a file the archive lacks", "exec client -addr $ADDR get k\ncmpvary stdout nx.out\n", "nx.out"},
		{"unclosed placeholder", "exec client get k\ncmpvary -text stdout '(int) «ms=1'\n", "unclosed placeholder"},
		{"placeholder without a name", "exec client get k\ncmpvary -text stdout '(int) «=1»'\n", "malformed placeholder"},
		{"placeholder with a bad regexp", "exec client get k\ncmpvary -text stdout '(int) «ms=(»'\n", "placeholder ms"},
		{"unknown cmpvary flag", "exec client get k\ncmpvary -x stdout f\n", "unknown flag"},
		{"only a pattern check", "exec client -addr $ADDR get k\nstdout '^\\(nil\\)$'\n", `line 1: "bin/client get k": no full comparison`},
		{"no check at all", "exec client -addr $ADDR get k\nexec client -addr $ADDR set k v\n! stdout .\n", "session incomplete"},
		{"waitfor pattern only", "waitfor '^\\(nil\\)$' client get k\n", "no full comparison"},
		{"failing client, stderr by pattern", "! exec client -x\n! stdout .\nstderr usage\n", "stderr is not compared in full"},
		{"check after another command", "exec client get k\nexec cat f\ncmp stdout f\n-- f --\nx\n", "no full comparison"},
		{"redis-cli printing raw into the pipe", "exec redis-cli -p $RESP_PORT get k\ncmpvary -text stdout v\n", "without --no-raw"},
		{"redis-cli --scan printing raw into the pipe", "exec redis-cli -p $RESP_PORT --scan\ncmpvary -text stdout k\n", "without --no-raw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderSession([]byte(tt.script))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RenderSession = %q, %v; want an error mentioning %q", got, err, tt.want)
			}
		})
	}
}
