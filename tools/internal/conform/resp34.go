package conform

import (
	"fmt"
	"strings"
)

// The ch34 stage: RDB files. SAVE writes the key space to one at once
// (INFO's count of changes since the last save drops to 0, LASTSAVE
// answers the time of it).

// rdbChecks are chapter 34's checks.
func rdbChecks(st *Stage, cfg *Config) []Check {
	return []Check{{
		Name:  "SAVE writes a snapshot: rdb_changes_since_last_save drops to 0",
		Hint:  "SAVE walks the whole key space into the RDB file and remembers the change count of its instant",
		Fresh: true,
		Run:   saveCheck,
	}, {
		Name: "not checked: what the files hold byte for byte",
		Skip: "the RDB format is checked against redis-check-rdb and a real Redis by the chapter's own tests (ch34_rdb/README.md)",
	}}
}

// infoPersistence returns INFO persistence's field name.
func infoPersistence(c *Conn, name string) (string, error) {
	_, got, err := c.CommandReply("INFO", "persistence")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(got), "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("INFO persistence has no %s field", name)
}

// saveCheck writes, saves, and reads the change count and LASTSAVE.
func saveCheck(e *Env) error {
	c, err := e.Dial()
	if err != nil {
		return err
	}
	if err := c.CommandExpect("+OK\r\n", "SET", "conform:rdb:s", "v"); err != nil {
		return err
	}
	if v, err := infoPersistence(c, "rdb_changes_since_last_save"); err != nil || v == "0" {
		return fmt.Errorf("after a SET, rdb_changes_since_last_save:%s (%v), want more than 0", v, err)
	}
	if err := c.CommandExpect("+OK\r\n", "SAVE"); err != nil {
		return err
	}
	if v, err := infoPersistence(c, "rdb_changes_since_last_save"); err != nil || v != "0" {
		return fmt.Errorf("after SAVE, rdb_changes_since_last_save:%s (%v), want 0", v, err)
	}
	if at, err := c.CommandInt("LASTSAVE"); err != nil || at < 1_000_000_000 {
		return fmt.Errorf("after SAVE, LASTSAVE answers %d (%v), want the unix time of the save", at, err)
	}
	return nil
}
