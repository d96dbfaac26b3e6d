package server

import (
	"encoding/binary"
	"testing"
)

// hostileRDBFiles are files an attacker who has read the loader might
// write, by what each tries: each must fail to load, or load without
// panicking and within what its size allows. They also seed FuzzRDBLoad.
func hostileRDBFiles() map[string][]byte {
	lp := func(size uint32, body ...byte) []byte {
		b := binary.LittleEndian.AppendUint32(nil, size)
		return append(append(b, 2, 0), body...)
	}
	lpString := func(lpBytes []byte) []byte { // as an RDB string of 14-bit length
		n := len(lpBytes)
		return append([]byte{0x40 | byte(n>>8), byte(n)}, lpBytes...)
	}
	expire := func(ms int64, rest ...byte) []byte {
		b := append([]byte("REDIS0010"), rdbOpExpireTimeMs)
		b = binary.LittleEndian.AppendUint64(b, uint64(ms))
		return append(b, rest...)
	}
	return map[string][]byte{
		"string past the end": hostileRDB(rdbTypeString, 0x80, 0x7f, 0xff, 0xff, 0xff, 'x'),
		"2^60 fields":         hostileRDB(rdbTypeHash, 0x81, 0x10, 0, 0, 0, 0, 0, 0, 0, 1, 'f', 1, 'v'),
		"2^60 members":        hostileRDB(rdbTypeZSet2, 0x81, 0x10, 0, 0, 0, 0, 0, 0, 0),
		"lzf of 4 GiB":        hostileRDB(rdbTypeString, 0xc3, 2, 0x80, 0xff, 0xff, 0xff, 0xff, 0, 'a'),
		// At LZF's largest ratio, but not LZF: the bytes are back
		// references before the start of the output.
		"lzf at the ratio, not lzf": hostileRDB(rdbTypeString, 0xc3, 4, 0x41, 0x60, 0xe0, 0xff, 0xff, 0xe0, 0xff),
		"a key of 2^32 bytes":       append([]byte("REDIS0010"), rdbTypeString, 0x80, 0xff, 0xff, 0xff, 0xff),
		"2^60 keys announced":       append([]byte("REDIS0010"), rdbOpResizeDB, 0x81, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x81, 0x10, 0, 0, 0, 0, 0, 0, 0),
		// A listpack whose size says more than the string holds, one
		// whose string entry claims 4 GiB, one whose count lies.
		"listpack size past the end": hostileRDB(rdbTypeHashLP, lpString(lp(1<<20, 0x81, 'a', 2, 0x81, 'b', 2, 0xff))...),
		"listpack entry of 4 GiB":    hostileRDB(rdbTypeZSetLP, lpString(lp(13, 0xf0, 0xff, 0xff, 0xff, 0xff, 'a', 0xff))...),
		"listpack without its end":   hostileRDB(rdbTypeHashLP, lpString(lp(10, 0x81, 'a', 2, 0x81))...),
		"listpack of one item":       hostileRDB(rdbTypeHashLP, lpString(lp(10, 0x81, 'a', 2, 0xff))...),
		"a NaN score":                hostileRDB(rdbTypeZSet, 1, 1, 'm', 253),
		"the same key twice":         append(hostileRDB(rdbTypeString, 1, 'v'), rdbTypeString, 1, 'k', 1, 'v', rdbOpEOF, 0, 0, 0, 0, 0, 0, 0, 0),
		"an expiry and no key":       expire(1<<40, rdbOpEOF, 0, 0, 0, 0, 0, 0, 0, 0),
		"a field's expiry too late":  append([]byte("REDIS0012"), rdbTypeHashMeta, 1, 'k', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 1, 0x81, 0x10, 0, 0, 0, 0, 0, 0, 0, 1, 'f', 1, 'v'),
	}
}

// TestRDBLoadHostileFiles: every hostile file fails to load, but for the
// one whose damage is harmless (an expiry with no key after it).
func TestRDBLoadHostileFiles(t *testing.T) {
	for name, data := range hostileRDBFiles() {
		resetData(t)
		_, err := rdbLoad(data, 0)
		if harmless := name == "an expiry and no key"; (err == nil) != harmless {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestRDBLoadNegativeExpiry: an expiry before 1970 has passed, as in
// Redis, which compares it with the time now: the key is not loaded (it
// used to be, without a TTL).
func TestRDBLoadNegativeExpiry(t *testing.T) {
	resetData(t)
	b := append([]byte("REDIS0010"), rdbOpExpireTimeMs)
	b = binary.LittleEndian.AppendUint64(b, uint64(1<<64-5)) // -5
	b = append(b, rdbTypeString, 1, 'k', 1, 'v', rdbOpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
	n, err := rdbLoad(b, 1000)
	if err != nil || n != 0 || lookupEntry([]byte("k")) != nil {
		t.Fatalf("a key whose expiry is -5 ms: loaded %d, %v", n, err)
	}
}
