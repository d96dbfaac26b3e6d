package conform

import (
	"fmt"
	"time"
)

// The ch36 stage: a server that keeps an append-only file rewrites it
// from a snapshot (BGREWRITEAOF) while writes go on, and after a kill -9
// and a restart has every write, those made during the rewrite too.

// rewriteChecks are chapter 36's checks.
func rewriteChecks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:  "BGREWRITEAOF keeps every write, those made during the rewrite too, across kill -9 (appendonly yes)",
		Hint:  "the rewrite writes the snapshot's keys to a temporary file, appends what the old log gained meanwhile, syncs and renames it",
		Fresh: true,
		Run:   rewriteCheck,
	}, {
		Name: "not checked: Redis 7's log of several files",
		Skip: "the manifest and the RDB preamble of Redis 7's rewritten log: chapter 36 rewrites Redis 6's single file of commands (ch36_aof_rewrite/README.md)",
	}}
}

// rewriteCheck writes, rewrites the log while writing more, kills and
// restarts the server, and reads everything back.
func rewriteCheck(e *Env) error {
	c, err := dialAppendOnly(e)
	if err != nil {
		return err
	}
	for i := range 50 {
		if err := c.CommandExpect("+OK\r\n", "SET", "conform:rw:s", fmt.Sprint("old", i)); err != nil {
			return err
		}
	}
	if err := c.steps(
		ex(":2\r\n", "HSET", "conform:rw:h", "f", "1", "g", "2"),
		ex(":2\r\n", "ZADD", "conform:rw:z", "1.5", "a", "2", "b"),
		ex("+Background append only file rewriting started\r\n", "BGREWRITEAOF"),
		ex("+OK\r\n", "SET", "conform:rw:during", "x"),
		ex(":1\r\n", "HSET", "conform:rw:h", "k", "3"),
	); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := infoPersistence(c, "aof_rewrite_in_progress")
		if err != nil {
			return err
		}
		if v == "0" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the rewrite did not end in 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v, err := infoPersistence(c, "aof_last_bgrewrite_status"); err != nil || v != "ok" {
		return fmt.Errorf("aof_last_bgrewrite_status:%s (%v), want ok", v, err)
	}
	if err := c.CommandExpect("+OK\r\n", "SET", "conform:rw:after", "y"); err != nil {
		return err
	}
	_, err = restartExpect(e, "after BGREWRITEAOF, a kill -9 and a restart",
		ex("$5\r\nold49\r\n", "GET", "conform:rw:s"),
		ex("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", "HMGET", "conform:rw:h", "f", "g", "k"),
		ex("*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n", "ZRANGE", "conform:rw:z", "0", "-1", "WITHSCORES"),
		ex("$1\r\nx\r\n", "GET", "conform:rw:during"),
		ex("$1\r\ny\r\n", "GET", "conform:rw:after"),
	)
	return err
}
