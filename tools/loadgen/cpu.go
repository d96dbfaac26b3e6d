package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of the times in /proc/PID/stat: the kernel reports
// them in USER_HZ ticks, which Linux fixes at 100 per second for every
// architecture this runs on.
const userHZ = 100

// procCPU returns the user plus system CPU time that process pid has used
// so far, all its threads included, from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("-pid %d: %v", pid, err)
	}
	return parseStatCPU(data)
}

// parseStatCPU reads utime and stime (fields 14 and 15) from the text of
// /proc/PID/stat. The command name, field 2, is in parentheses and may
// itself hold spaces or parentheses, so fields are counted after the last
// ')'.
func parseStatCPU(data []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc stat: no command name in %q", data)
	}
	f := bytes.Fields(data[end+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat: only %d fields after the name", len(f))
	}
	var ticks uint64
	for _, s := range f[11:13] {
		n, err := strconv.ParseUint(string(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: bad time %q", s)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
