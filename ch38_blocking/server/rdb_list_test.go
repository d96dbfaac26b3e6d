package server

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"example.com/byor/ch38_blocking/quicklist"
)

// putList puts a list of vs at key, pushed at the tail, or at the head
// (so that its first node is the one that fills up) with head set.
func putList(key string, vs []string, head bool) *entry {
	l := &quicklist.List{}
	for _, v := range vs {
		if head {
			l.PushHead([]byte(v))
		} else {
			l.PushTail([]byte(v))
		}
	}
	ent := newEntry(key, nil)
	ent.obj = &object{list: l}
	insertEntry(ent)
	return ent
}

// numbered returns n elements: prefix and the number, and every 7th the
// number alone, which Redis would pack as an integer.
func numbered(prefix string, n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = prefix + strconv.Itoa(i)
		if i%7 == 0 {
			vs[i] = strconv.Itoa(i - n/2)
		}
	}
	return vs
}

// putSampleLists puts lists of every size class: small, of empty strings,
// of elements longer than a node (8 KiB) and than a stretch's straight
// length, of 100,000 elements in many nodes, and one with a TTL.
func putSampleLists() {
	putList("small", []string{"a", "", "b", "-1", "9223372036854775808"}, false)
	putList("empties", []string{"", "", ""}, false)
	putList("long", []string{"x", strings.Repeat("L", 9<<10), "y", strings.Repeat("M", 100<<10), "z"}, true)
	putList("many", numbered("e", 100_000), true)
	entrySetTTL(putList("ttl", []string{"t"}, false), 3600_000)
}

// TestRDBListsRoundTrip: what SAVE writes of lists loads back as the same
// lists (and TTL), and each node's listpack is in the file as it is, as
// Redis 7.0 writes it: container PACKED, then the listpack as a string.
func TestRDBListsRoundTrip(t *testing.T) {
	resetTx(t)
	putSampleLists()
	want := keySpaceLines()
	path := filepath.Join(t.TempDir(), "dump.rdb")
	if err := snapshotRun(&rdbEncoder{}, path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("REDIS0010")) {
		t.Fatalf("the file begins %q", data[:9])
	}
	nodes := 0
	gData.db.All(func(ent *entry) {
		for at := ent.obj.list.First(); at.Valid(); {
			var lp []byte
			lp, at = at.Listpack()
			nodes++
			if rec := rdbAppendString([]byte{rdbContainerPacked}, string(lp)); !bytes.Contains(data, rec) {
				t.Fatalf("%s: a node's listpack of %d bytes is not in the file as it is", ent.key(), len(lp))
			}
		}
		if head := rdbAppendLen(rdbAppendString([]byte{rdbTypeListQuicklist2}, ent.key()), uint64(ent.obj.list.Nodes())); !bytes.Contains(data, head) {
			t.Fatalf("%s: no type 18 and count of its %d nodes in the file", ent.key(), ent.obj.list.Nodes())
		}
	})
	resetTx(t)
	n, err := rdbLoad(data, int64(getUnixMs()))
	if err != nil {
		t.Fatal(err)
	}
	if got := keySpaceLines(); !slices.Equal(got, want) || n != len(want) {
		t.Fatalf("loaded %d keys, not the %d saved, or other lists", n, len(want))
	}
	if ent := lookupEntry("ttl"); ent == nil || entryExpireMs(ent, 0) < 3500_000 {
		t.Fatal("ttl lost its TTL of an hour")
	}
	t.Logf("%d lists of %d nodes, %d bytes", n, nodes, len(data))
}

// lpOf returns a listpack of the entries encs (each an encoding and its
// data, as Redis writes them), with their backward lengths.
func lpOf(encs ...[]byte) string {
	lp := make([]byte, 6)
	for _, e := range encs {
		lp = append(lp, e...)
		if n := len(e); n < 128 {
			lp = append(lp, byte(n))
		} else {
			lp = append(lp, byte(n>>7), byte(n&127)|128)
		}
	}
	lp = append(lp, 0xff)
	lp[0], lp[1], lp[4] = byte(len(lp)), byte(len(lp)>>8), byte(len(encs))
	return string(lp)
}

// rdbFile is a file of version 10 with the records recs, an EOF and no
// checksum (0: none computed).
func rdbFile(recs ...[]byte) []byte {
	b := []byte("REDIS0010")
	for _, r := range recs {
		b = append(b, r...)
	}
	return append(append(b, rdbOpEOF), make([]byte, 8)...)
}

// listRec is a record of a list of type 18 at key, its nodes (container,
// bytes) as given.
func listRec(key string, nodes ...any) []byte {
	b := rdbAppendLen(rdbAppendString([]byte{rdbTypeListQuicklist2}, key), uint64(len(nodes)/2))
	for i := 0; i < len(nodes); i += 2 {
		b = rdbAppendString(rdbAppendLen(b, uint64(nodes[i].(int))), nodes[i+1].(string))
	}
	return b
}

// TestRDBListsLoad: lists in each form Redis writes or has written: type
// 1 (a count and strings, one stored as an integer), type 18 with PLAIN
// nodes (one element each: Redis's for elements of 1 GiB and more) and
// PACKED ones holding integers; an empty listpack adds nothing and a list
// of none is left out, as Redis 7.0 loads them; the ziplists of Redis
// before 7.0 (types 10 and 14), an unknown container and a damaged
// listpack are refused, naming the file and the type.
func TestRDBListsLoad(t *testing.T) {
	packed := lpOf([]byte{0x05}, []byte{0xdf, 0x9c}, []byte{0xf1, 0xe8, 0x03},
		[]byte{0xf4, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff}, []byte{0x81, 'x'}, []byte{0x80})
	empty := lpOf()
	data := rdbFile(
		append(rdbAppendString(rdbAppendString(rdbAppendString(rdbAppendLen(
			rdbAppendString([]byte{rdbTypeList}, "plain"), 4), "a"), ""), "z"), 0xc0, 0xfb),
		listRec("nodes", rdbContainerPlain, "big", rdbContainerPacked, empty,
			rdbContainerPacked, packed, rdbContainerPlain, ""),
		listRec("none", rdbContainerPacked, empty),
		rdbAppendLen(rdbAppendString([]byte{rdbTypeList}, "zero"), 0),
	)
	resetTx(t)
	n, err := rdbLoad(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	list := func(key string) []string {
		ent := lookupEntry(key)
		if ent == nil {
			return nil
		}
		var vs []string
		for it := ent.obj.list.First(); it.Valid(); it.Next() {
			vs = append(vs, string(it.Value()))
		}
		return vs
	}
	if got, want := list("plain"), []string{"a", "", "z", "-5"}; !slices.Equal(got, want) {
		t.Errorf("type 1: %q, not %q", got, want)
	}
	if got, want := list("nodes"), []string{"big", "5", "-100", "1000", "-1099511627776", "x", "", ""}; !slices.Equal(got, want) {
		t.Errorf("type 18: %q, not %q", got, want)
	}
	if n != 2 || lookupEntry("none") != nil || lookupEntry("zero") != nil {
		t.Errorf("%d keys loaded; the empty lists are left out", n)
	}

	bad := packed[:len(packed)-2] + "\xff" // cut, its size no longer its length
	for name, c := range map[string]struct {
		rec  []byte
		want string
	}{
		"ziplist":         {rdbAppendString(rdbAppendString([]byte{10}, "k"), "zl"), "has type 10"},
		"quicklist":       {rdbAppendLen(rdbAppendString([]byte{14}, "k"), 1), "has type 14"},
		"container 3":     {listRec("k", 3, "v"), "container 3"},
		"a bad listpack":  {listRec("k", rdbContainerPacked, bad), "listpack"},
		"nodes past it":   {listRec("k", rdbContainerPacked, packed)[:20], "ends early"},
		"a length itself": {append(rdbAppendString([]byte{rdbTypeListQuicklist2}, "k"), 1, 0xc0, 1), "encoding where a length"},
	} {
		resetData(t)
		if _, err := rdbLoad(rdbFile(c.rec), 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, not an error saying %q", name, err, c.want)
		}
	}

	// At start, the error names the file.
	defer func(dir string) { aofDir = dir }(aofDir)
	aofDir = t.TempDir()
	path := filepath.Join(aofDir, rdbState.filename)
	if err := os.WriteFile(path, rdbFile(rdbAppendLen(rdbAppendString([]byte{14}, "old"), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	resetData(t)
	if err := rdbStart(); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "type 14") {
		t.Fatalf("a file of a ziplist started as: %v", err)
	}
}
