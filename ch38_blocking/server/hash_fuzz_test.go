package server

import (
	"strconv"
	"testing"

	"example.com/byor/ch38_blocking/resp"
)

// FuzzHScanHRandField gives HSCAN and HRANDFIELD arbitrary arguments on a
// hash of 200 fields (past the size answered whole) and one of 3: every
// reply is one well-formed reply, HSCAN's a cursor that parses and pairs
// of the hash's fields, HRANDFIELD's as many items as its count asks,
// and nothing panics.
func FuzzHScanHRandField(f *testing.F) {
	for _, seed := range []struct {
		a, b, c, d string
		v3         bool
	}{
		{"0", "COUNT", "10", "MATCH", false},
		{"18446744073709551615", "match", "f1*", "count", true},
		{"-9223372036854775807", "WITHVALUES", "", "", true},
		{"5", "withvalues", "x", "", false},
		{"-1", "COUNT", "0", "NOVALUES", false},
	} {
		f.Add(seed.a, seed.b, seed.c, seed.d, seed.v3)
	}
	f.Fuzz(func(t *testing.T, a, b, c, d string, v3 bool) {
		resetData(t)
		saveBudget(t)
		maxOutputTotal = 1 << 20
		big := []string{"HSET", "big"}
		for i := range 200 {
			big = append(big, "f"+strconv.Itoa(i), "v")
		}
		respRun(t, big...)
		respRun(t, "HSET", "small", "a", "1", "b", "2", "c", "3")
		ver := resp.RESP2
		if v3 {
			ver = resp.RESP3
		}
		for _, key := range []string{"big", "small", "nokey"} {
			for _, args := range [][]string{{"HSCAN", key, a, b, c, d}, {"HSCAN", key, a, b, c}, {"HSCAN", key, a}} {
				n, rest := parseReply(t, respRunVer(t, ver, args...))
				if rest != "" {
					t.Fatalf("%q: %q after the reply", args, rest)
				}
				if n.kind == '-' {
					continue
				}
				if len(n.elems) != 2 || len(n.elems[1].elems)%2 != 0 {
					t.Fatalf("%q: %+v is no cursor and pairs", args, n)
				}
				if _, err := strconv.ParseUint(n.elems[0].text, 10, 64); err != nil {
					t.Fatalf("%q: cursor %q", args, n.elems[0].text)
				}
			}
			for _, args := range [][]string{{"HRANDFIELD", key, a}, {"HRANDFIELD", key, a, b}, {"HRANDFIELD", key, a, b, c}} {
				n, rest := parseReply(t, respRunVer(t, ver, args...))
				if rest != "" {
					t.Fatalf("%q: %q after the reply", args, rest)
				}
				if n.kind == '-' || key == "nokey" {
					continue
				}
				count, _ := strconv.ParseInt(a, 10, 64)
				size := map[string]int64{"big": 200, "small": 3}[key]
				want := max(-count, min(count, size))
				if len(args) == 4 && ver == resp.RESP2 {
					want *= 2
				}
				if int64(len(n.elems)) != want {
					t.Fatalf("%q: %d items, want %d", args, len(n.elems), want)
				}
			}
		}
	})
}
