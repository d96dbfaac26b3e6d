package chapter_test

import (
	"strconv"
	"strings"
	"time"
)

// The generic key commands in the differential test: RENAME, RENAMENX,
// COPY, RANDOMKEY, the EXPIREAT family and EXPIRETIME, TOUCH, TIME, OBJECT,
// MEMORY USAGE, SWAPDB and MOVE. The Redis compared with has 16
// databases, this server one: the database indexes sent are those both
// answer alike (0, and those out of range of both).
func init() {
	familyGens = append(familyGens, keysCommand)
	familyNormalizers = append(familyNormalizers, normalizeKeys)
}

// dbIndex is a database index both servers answer alike.
func (g *cmdGen) dbIndex() string {
	return g.pick("0", "0", "16", "-1", "x", "", "2147483648", "-0", "00")
}

// unixTime is an EXPIREAT or PEXPIREAT time: in the past, in a future
// never reached in the run (the same argument to both servers, so GT and
// LT compare alike), the last ones an int64 of milliseconds holds (and
// the first seconds past them), or one that does not parse or overflows.
func (g *cmdGen) unixTime(unitMs int64) string {
	now := time.Now().UnixMilli() / unitMs
	switch g.rng.IntN(5) {
	case 0:
		return g.pick("0", "1", "-1", "-9223372036854775808", strconv.FormatInt(now-10, 10))
	case 1:
		return g.pick("abc", "", "+5", "1.5", "9223372036854775807", "9223372036854775808")
	case 2:
		return g.pick("9223372036854775807", "9223372036854775806", "9223372036854775", "9223372036854776", "9223372036854775000")
	}
	// Far enough to outlive the run, close enough for the clock of this
	// server's timers (see the README's deliberate differences).
	return strconv.FormatInt(now+int64(1e6+g.rng.IntN(1e9))*1000/unitMs, 10)
}

func keysCommand(g *cmdGen) []string {
	switch g.rng.IntN(14) {
	case 0:
		return []string{g.pick("RENAME", "RENAMENX"), g.key(), g.key()}
	case 1:
		cmd := []string{"COPY", g.key(), g.key()}
		for range g.rng.IntN(4) / 2 {
			switch opt := g.pick("REPLACE", "DB", "db", "replace", "BAD"); opt {
			case "DB", "db":
				cmd = append(cmd, opt)
				if g.rng.IntN(8) != 0 { // or DB with no index
					cmd = append(cmd, g.dbIndex())
				}
			default:
				cmd = append(cmd, opt)
			}
		}
		return cmd
	case 2:
		return []string{"RANDOMKEY"}
	case 3, 4:
		name := g.pick("EXPIREAT", "PEXPIREAT")
		unit := int64(1000)
		if name == "PEXPIREAT" {
			unit = 1
		}
		cmd := []string{name, g.key(), g.unixTime(unit)}
		for range g.rng.IntN(3) / 2 {
			cmd = append(cmd, g.pick("NX", "XX", "GT", "LT", "nx", "BAD"))
		}
		return cmd
	case 5:
		return []string{g.pick("EXPIRETIME", "PEXPIRETIME", "TTL", "PERSIST"), g.key()}
	case 6:
		return []string{"TOUCH", g.key(), g.key(), g.key()}
	case 7:
		return []string{g.pick("TIME", "DBSIZE")}
	case 8:
		return []string{"OBJECT", g.pick("ENCODING", "FREQ", "IDLETIME", "REFCOUNT", "encoding", "nosuch"), g.key()}
	case 9:
		cmd := []string{"MEMORY", "USAGE", g.key()}
		if g.rng.IntN(2) == 0 {
			cmd = append(cmd, g.pick("SAMPLES", "samples", "BAD"), g.pick("0", "5", "-1", "x", "100"))
		}
		return cmd
	case 10:
		return []string{"SWAPDB", g.dbIndex(), g.dbIndex()}
	case 11:
		return []string{"MOVE", g.key(), g.dbIndex()}
	case 12:
		// Arities, for the errors.
		return g.pick2([]string{"RENAME", g.key()}, []string{"COPY", g.key()}, []string{"RANDOMKEY", "x"},
			[]string{"EXPIRETIME"}, []string{"OBJECT"}, []string{"OBJECT", "ENCODING"}, []string{"MEMORY", "USAGE"},
			[]string{"TIME", "x"}, []string{"SWAPDB", "0"}, []string{"MOVE", g.key()}, []string{"TOUCH"})
	}
	return []string{"INFO", g.pick("commandstats", "errorstats", "replication", "everything")}
}

// normalizeKeys takes out of the key commands' replies what differs by
// nature or by design (the README's list): the time TIME answers, the key
// RANDOMKEY picks, a positive EXPIRETIME's exact value after a relative
// TTL (set from each server's own clock; not one past farExpireMs, which
// only an absolute time reaches), OBJECT ENCODING's names (this
// server's structures are not Redis's), OBJECT IDLETIME's and REFCOUNT's
// integers (this server keeps neither), and MEMORY USAGE's estimate.
func normalizeKeys(cmd []string, reply string) (string, bool) {
	name := strings.ToUpper(cmd[0])
	integer := strings.HasPrefix(reply, ":")
	switch {
	case name == "TIME" && strings.HasPrefix(reply, "*2\r\n"):
		return "TIME", true
	case name == "RANDOMKEY" && strings.HasPrefix(reply, "$") && reply != "$-1\r\n":
		return "$a-key", true
	case (name == "EXPIRETIME" || name == "PEXPIRETIME") && integer && !strings.HasPrefix(reply, ":-"):
		unitMs := int64(1)
		if name == "EXPIRETIME" {
			unitMs = 1000
		}
		if n, err := strconv.ParseInt(reply[1:len(reply)-2], 10, 64); err == nil && n >= farExpireMs/unitMs {
			return reply, true // as given, to the unit
		}
		return ":a-time", true
	case name == "OBJECT" && len(cmd) == 3 && strings.EqualFold(cmd[1], "encoding") && strings.HasPrefix(reply, "$") && reply != "$-1\r\n":
		return "$an-encoding", true
	case name == "OBJECT" && len(cmd) == 3 && (strings.EqualFold(cmd[1], "idletime") || strings.EqualFold(cmd[1], "refcount")) && integer:
		return ":an-integer", true
	case name == "MEMORY" && integer:
		return ":some-bytes", true
	}
	return "", false
}

// farExpireMs is a unix time (ms) no relative TTL of the generator reaches
// (its largest that Redis takes, 9223372036854 s, ends near 9.2e15 ms),
// while EXPIREAT, PEXPIREAT, EXAT and PXAT are sent times past it, up to
// the int64 top: a server that clamps such a time answers another one.
const farExpireMs = 9e18
