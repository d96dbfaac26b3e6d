package conform

import (
	"fmt"
	"strconv"
)

// The ch33 stage: a server that claims an append-only file (CONFIG GET
// appendonly answers yes) keeps every acknowledged write across a crash.
// The check writes under appendfsync always, kills the server (SIGKILL),
// starts it again on the same command line, and reads the data back.

// resp33Checks are chapter 33's checks.
func resp33Checks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:  "acknowledged writes survive kill -9 and a restart (appendonly yes)",
		Hint:  "every write that changed the key space is appended to the log and written (and under appendfsync always fsynced) before its reply is sent; at start the log is replayed",
		Fresh: true,
		Run:   aofRestartCheck,
	}, {
		Name: "not checked: what chapter 33 does not claim",
		Skip: "rewriting the log (BGREWRITEAOF), Redis 7's manifest layout, and a crash of the machine rather than of the process (ch33_aof/README.md)",
	}}
}

// aofRestartCheck writes keys of each type and a TTL, kills and restarts
// the server, and checks them.
func aofRestartCheck(e *Env) error {
	c, err := dialAppendOnly(e)
	if err != nil {
		return err
	}
	// Whatever its -appendfsync: a crash of the process, unlike one of
	// the machine, loses nothing acknowledged under any policy.
	if err := c.steps( // the DEL finds nothing on a fresh server
		ex(":0\r\n", "DEL", "conform:aof:s", "conform:aof:h", "conform:aof:z", "conform:aof:n", "conform:aof:t"),
		ex("+OK\r\n", "SET", "conform:aof:s", "kept"),
		ex(":2\r\n", "HSET", "conform:aof:h", "f", "1", "g", "2"),
		ex(":2\r\n", "ZADD", "conform:aof:z", "1.5", "a", "2", "b"),
		ex(":3\r\n", "INCRBY", "conform:aof:n", "3"),
		ex("+OK\r\n", "SET", "conform:aof:t", "ttl", "EX", "3600"),
	); err != nil {
		return err
	}
	c, err = restartExpect(e, "after a kill -9 and a restart",
		ex("$4\r\nkept\r\n", "GET", "conform:aof:s"),
		ex("*2\r\n$1\r\n1\r\n$1\r\n2\r\n", "HMGET", "conform:aof:h", "f", "g"),
		ex("*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n", "ZRANGE", "conform:aof:z", "0", "-1", "WITHSCORES"),
		ex(":4\r\n", "INCR", "conform:aof:n"),
	)
	if err != nil {
		return err
	}
	ttl, err := c.CommandInt("TTL", "conform:aof:t")
	if err != nil {
		return err
	}
	if ttl < 3500 || ttl > 3600 {
		return fmt.Errorf("after a kill -9 and a restart, TTL conform:aof:t = %s, want about 3600: the expiry was not kept as an absolute time", strconv.FormatInt(ttl, 10))
	}
	return nil
}

// dialAppendOnly dials the server and asks whether it keeps an
// append-only file: a check of the log skips a server that does not.
func dialAppendOnly(e *Env) (*Conn, error) {
	c, err := e.Dial()
	if err != nil {
		return nil, err
	}
	_, got, err := c.CommandReply("CONFIG", "GET", "appendonly")
	if err != nil {
		return nil, err
	}
	if string(got) != "*2\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n" {
		return nil, &skip{"the server keeps no append-only file (CONFIG GET appendonly does not say yes): start it with -appendonly yes -dir D"}
	}
	return c, nil
}

// restartExpect kills and restarts the server, dials it once it has
// loaded its data, and runs steps there; when names the moment in a
// mismatch. It returns the new connection.
func restartExpect(e *Env, when string, steps ...respStep) (*Conn, error) {
	if err := e.Restart(); err != nil {
		return nil, err
	}
	c, err := e.DialLoaded()
	if err != nil {
		return nil, err
	}
	if err := c.steps(steps...); err != nil {
		return nil, fmt.Errorf("%s: %w", when, err)
	}
	return c, nil
}
