package server

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// infoLine returns the line of INFO's text that starts with prefix, or "".
func infoLine(info, prefix string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// TestINFOCommandStats: commandstats counts each command's calls, the
// calls refused before running (a wrong number of arguments) and those
// that ran and answered an error, subcommands under container|sub;
// errorstats counts the errors by kind, unknown commands included.
func TestINFOCommandStats(t *testing.T) {
	resetData(t)
	saved := map[*command]cmdStat{}
	for c, s := range cmdStats {
		saved[c] = *s
		*s = cmdStat{}
	}
	savedErrors := errorStats
	errorStats = map[string]int64{}
	t.Cleanup(func() {
		for c, s := range saved {
			*cmdStats[c] = s
		}
		errorStats = savedErrors
	})
	respRun(t, "SET", "k", "v")
	respRun(t, "SET", "k", "v", "NX")
	respRun(t, "SET", "k")                     // refused: arity
	respRun(t, "RENAME", "nosuch", "x")        // ran, failed
	respRun(t, "ZADD", "k", "1", "m")          // WRONGTYPE
	respRun(t, "NOSUCHCOMMAND")                // unknown: errorstats only
	respRun(t, "OBJECT", "ENCODING", "k")      // a subcommand
	respRun(t, "OBJECT", "ENCODING", "k", "x") // refused: the subcommand's arity
	info := respRun(t, "INFO", "commandstats", "errorstats")
	usec := regexp.MustCompile(`usec=\d+,usec_per_call=\d+\.\d\d`)
	var got []string
	for _, line := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(line, "cmdstat_") || strings.HasPrefix(line, "errorstat_") {
			got = append(got, usec.ReplaceAllString(line, "usec=U"))
		}
	}
	want := []string{
		"cmdstat_object|encoding:calls=1,usec=U,rejected_calls=1,failed_calls=0",
		"cmdstat_rename:calls=1,usec=U,rejected_calls=0,failed_calls=1",
		"cmdstat_set:calls=2,usec=U,rejected_calls=1,failed_calls=0",
		"cmdstat_zadd:calls=1,usec=U,rejected_calls=0,failed_calls=1",
		"errorstat_ERR:count=4",
		"errorstat_WRONGTYPE:count=1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("INFO commandstats errorstats (-want +got):\n%s", diff)
	}
	if line := infoLine(respRun(t, "INFO", "stats"), "total_error_replies:"); line == "" {
		t.Errorf("INFO stats has no total_error_replies")
	}
}

// TestINFOSectionsTheSuiteReads: INFO's default sections and "all" hold
// the fields Redis's tests and tools read, and the per-command ones only
// when asked.
func TestINFOSectionsTheSuiteReads(t *testing.T) {
	resetData(t)
	respRun(t, "GET", "k")
	def, all := respRun(t, "INFO"), respRun(t, "INFO", "all")
	for _, field := range []string{"redis_version:", "used_cpu_user:", "used_cpu_user_children:", "used_memory:",
		"master_repl_offset:", "role:master", "total_error_replies:"} {
		if infoLine(def, field) == "" || infoLine(all, field) == "" {
			t.Errorf("INFO or INFO all lacks %s", field)
		}
	}
	if strings.Contains(def, "rejected_calls") || !strings.Contains(all, "rejected_calls") {
		t.Errorf("rejected_calls: want it in INFO all only")
	}
	if strings.Count(all, "used_cpu_user_children") != 1 {
		t.Errorf("INFO all has used_cpu_user_children %d times", strings.Count(all, "used_cpu_user_children"))
	}
}
