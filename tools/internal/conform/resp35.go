package conform

import (
	"fmt"
	"time"
)

// The ch35 stage: a snapshot taken while the server serves. BGSAVE
// answers at once; the save runs on (rdb_bgsave_in_progress) while
// clients are answered, and ends well.

// bgsaveChecks are chapter 35's checks.
func bgsaveChecks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:  "BGSAVE answers at once and saves while the server serves: rdb_last_bgsave_status ok",
		Hint:  "BGSAVE starts a snapshot that is written a slice per turn (or by a child process) and replies before it is done; INFO persistence says when it ends and how",
		Fresh: true,
		Run:   bgsaveCheck,
	}}
}

// bgsaveCheck writes, starts a background save, writes during it, and
// waits for its end.
func bgsaveCheck(e *Env) error {
	c, err := e.Dial()
	if err != nil {
		return err
	}
	for i := range 1000 {
		if err := c.CommandExpect("+OK\r\n", "SET", fmt.Sprint("conform:bg:", i), "v"); err != nil {
			return err
		}
	}
	if err := c.steps(
		ex("+Background saving started\r\n", "BGSAVE"),
		ex("+OK\r\n", "SET", "conform:bg:during", "x"),
		ex("$1\r\nx\r\n", "GET", "conform:bg:during"),
	); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := infoPersistence(c, "rdb_bgsave_in_progress")
		if err != nil {
			return err
		}
		if v == "0" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the background save did not end in 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v, err := infoPersistence(c, "rdb_last_bgsave_status"); err != nil || v != "ok" {
		return fmt.Errorf("rdb_last_bgsave_status:%s (%v), want ok", v, err)
	}
	return nil
}
