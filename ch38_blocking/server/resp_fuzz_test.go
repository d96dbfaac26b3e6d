package server

import (
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// FuzzRESPCommands runs arbitrary requests, one after another on one key
// space, through the RESP commands: none may panic, every one gets exactly
// one well-formed reply, and no command run by EXEC does more work than
// EXEC weighed for it.
func FuzzRESPCommands(f *testing.F) {
	for _, seed := range []string{
		"ZADD z 1 a 2 b\r\nZRANGE z 0 -1 WITHSCORES\r\nZRANGE z (1 +inf BYSCORE LIMIT 0 -1\r\n",
		"SET k v EX 100 GET\r\nEXPIRE k -0\r\nTTL k\r\nPERSIST k\r\n",
		"HSET h f v\r\nHGETALL h\r\nHELLO 3\r\nZADD z INCR inf a\r\nZADD z INCR -inf a\r\n",
		"MULTI\r\nSET a b\r\nEXEC\r\nCOMMAND\r\nCONFIG GET *\r\nKEYS *\r\nFLUSHALL\r\n",
		"ZRANGE z -9223372036854775808 9223372036854775807\r\nPEXPIRE z 9223372036854775807\r\n",
		"WATCH a z\r\nSET a b\r\nMULTI\r\nZADD z 1 m\r\nGET\r\nEXEC\r\nWATCH z\r\nMULTI\r\nDEL z\r\nEXEC x\r\nUNWATCH\r\n",
		"WATCH a\nSET a 0\nMULTI\nEXEC \n",                      // EXEC answers the null array
		"HELLO 3\r\nINFO keyspace\r\nMULTI\r\nINFO\r\nEXEC\r\n", // INFO's verbatim string
		"MULTI\r\nCLIENT SETNAME x\r\nCONFIG GET *\r\nCOMMAND COUNT\r\nEXEC\r\nCLIENT nosuch\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		resetData(t)
		st := newRESPState(nil)
		defer st.release() // its queue and watched keys
		c := newConn(-1)
		c.framing = st
		execDone = func(weighed, did []int) {
			for i := range weighed {
				if did[i] > weighed[i] {
					t.Fatalf("EXEC's command %d of %d did %d units of work, weighed at %d", i+1, len(weighed)-1, did[i], weighed[i])
				}
			}
		}
		defer func() { execDone = nil }()
		var args [][]byte
		for len(data) > 0 {
			cmd, n, err := resp.ParseRequest(data, args)
			if err != nil {
				return
			}
			data, args = data[n:], cmd
			if len(cmd) == 0 {
				continue
			}
			st.w.begin(nil)
			respDo(c, st, cmd)
			if st.w.over {
				continue // replaced by an error, as oneRequest does
			}
			reply := st.w.buf
			if rest, ok := skipReply(reply); !ok || len(rest) != 0 {
				t.Fatalf("%q: not one well-formed reply: %q", cmd, reply)
			}
		}
	})
}

// skipReply returns what follows the reply at the front of b, and whether
// there is a whole, well-formed one there.
func skipReply(b []byte) ([]byte, bool) {
	end := 0
	for end+1 < len(b) && !(b[end] == '\r' && b[end+1] == '\n') {
		end++
	}
	if end+1 >= len(b) || end == 0 {
		return nil, false
	}
	line, rest := b[1:end], b[end+2:]
	n, ok := respInt(line)
	switch b[0] {
	case '+', '-', ':', ',', '_':
		return rest, true
	case '$', '=': // '=': RESP3's verbatim string (INFO), framed as a bulk one
		if b[0] == '$' && ok && n == -1 {
			return rest, true
		}
		if !ok || n < 0 || int64(len(rest)) < n+2 {
			return nil, false
		}
		return rest[n+2:], rest[n] == '\r' && rest[n+1] == '\n'
	case '*', '%':
		if b[0] == '*' && ok && n == -1 {
			return rest, true // RESP2's null array: a failed EXEC
		}
		if !ok || n < 0 {
			return nil, false
		}
		if b[0] == '%' {
			n *= 2
		}
		for range n {
			if rest, ok = skipReply(rest); !ok {
				return nil, false
			}
		}
		return rest, true
	}
	return nil, false
}
