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

func TestRenderSession(t *testing.T) {
	tests := []struct {
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
			"$ ./client get k",
			"server says: [2] ",
			"$ ./client keys",
			"(arr) len=1",
			"(str) k",
			"(arr) end",
		),
	}, {
		name: "redis-cli is shown on the default RESP port",
		script: `startserver
exec redis-cli -p $RESP_PORT set k 'a b'
stdout '^OK$'
exec redis-cli -3 -h $RESP_HOST -p $RESP_PORT get k
cmp stdout get.out
exec client -addr $ADDR get k
stdout '^\(str\) a b$'

-- get.out --
a b
`,
		want: console(
			"$ redis-cli -p 6380 set k 'a b'",
			"OK",
			"$ redis-cli -3 -p 6380 get k",
			"a b",
			"$ ./client get k",
			"(str) a b",
		),
	}, {
		name: "anchored literal patterns are unescaped, others left out",
		script: `startserver
exec client -addr $ADDR zscore z n
stdout '^\(dbl\) 1\.5$'
exec client -addr $ADDR pttl k
stdout '^\(int\) (9\d{4}|100000)$'
exec client -addr $ADDR keys
stdout '^\(arr\) len=2$'
stdout '^\[x\] \{y\} a\*b\?$'
stdout 'len='
stdout '^\(str\) '
stdout -count=2 '^\(str\) a$'
stdout -count=1 '^\(arr\) end$'
stdout '(?i)^ok$'
! stdout '^\(nil\)$'
exec client -addr $ADDR get empty
stdout '^\(str\) $'
`,
		want: console(
			"$ ./client zscore z n",
			"(dbl) 1.5",
			"$ ./client pttl k",
			"$ ./client keys",
			"(arr) len=2",
			"[x] {y} a*b?",
			"(arr) end",
			"$ ./client get empty",
			"(str) ",
		),
	}, {
		name: "a failing client shows its stderr",
		script: `! exec client -addr 127.0.0.1:1
stderr '^client: connect: connection refused$'
! exec client -nosuchflag
stderr 'usage: client'
`,
		want: console(
			"$ ./client -addr 127.0.0.1:1",
			"client: connect: connection refused",
			"$ ./client -nosuchflag",
		),
	}, {
		name: "server commands and checks after them are left out",
		script: `! exec server -nosuchflag
stderr '^usage: server$'
startserver
exec client -addr $ADDR
exec client -addr $ADDR set k v
waitlog ^EOF$
stdout '^after waitlog$'
stopserver
cmp stdout server.out

-- server.out --
client says: hello
`,
		want: console(
			"$ ./client",
			"$ ./client set k v",
		),
	}, {
		name: "comments directly above a client command are kept",
		script: `# The header describes the whole file.
startserver
exec client -addr $ADDR set k v

# Explains the next command,
# over two lines.
exec client -addr $ADDR get k
stdout '^\(str\) v$'
# Above a server command: dropped.
stopserver
# Separated by a blank line: dropped.

startserver
# Explains del.
exec client -addr $ADDR del k
`,
		want: console(
			"$ ./client set k v",
			"",
			"# Explains the next command,",
			"# over two lines.",
			"$ ./client get k",
			"(str) v",
			"",
			"# Explains del.",
			"$ ./client del k",
		),
	}, {
		name: "waitfor shows its command and the output it waits for",
		script: `exec client -addr $ADDR pexpire k 100
waitfor '^\(nil\)$' client -addr $ADDR get k
waitfor '^\(int\) -[12]$' client -addr $ADDR pttl k
waitfor '^x$' server -addr $ADDR
`,
		want: console(
			"$ ./client pexpire k 100",
			"$ ./client get k",
			"(nil)",
			"$ ./client pttl k",
		),
	}, {
		name: "arguments are quoted as a shell user types them",
		script: `exec client -addr $ADDR set k 'a value with spaces'
exec client -addr $ADDR set empty ''
exec client -addr $ADDR set q 'it''s' # a trailing comment
exec client -addr $ADDR zquery z 1 '' 0 10
exec client -addr $ADDR set glob '*' -1 1.5
`,
		want: console(
			"$ ./client set k 'a value with spaces'",
			"$ ./client set empty ''",
			`$ ./client set q 'it'\''s'`,
			"$ ./client zquery z 1 '' 0 10",
			"$ ./client set glob '*' -1 1.5",
		),
	}}
	for _, tt := range tests {
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

func TestLiteralLine(t *testing.T) {
	tests := []struct {
		pattern, want string
		ok            bool
	}{
		{`^\(int\) 1$`, "(int) 1", true},
		{`^$`, "", true},
		{`\A\(nil\)\z`, "(nil)", true},
		{`^a\.b\\c$`, `a.b\c`, true},
		{`^a.b$`, "", false},
		{`^ab`, "", false},
		{`ab$`, "", false},
		{`^a|b$`, "", false},
		{`^a+$`, "", false},
		{`^(?i)ab$`, "", false},
		{`^(ab$`, "", false},
	}
	for _, tt := range tests {
		got, ok := literalLine(tt.pattern)
		if got != tt.want || ok != tt.ok {
			t.Errorf("literalLine(%q) = %q, %v; want %q, %v", tt.pattern, got, ok, tt.want, tt.ok)
		}
	}
}
