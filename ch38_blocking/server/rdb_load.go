package server

// Loading an RDB file at start: this server's own, and what Redis 7.0
// writes (small hashes and sorted sets as listpacks, strings as integers
// or LZF-compressed). The whole file is read and its checksum checked
// before a key is loaded: a damaged file stops the server, naming it,
// rather than leaving a key space half loaded or empty. Every length is
// checked against the bytes left before anything is allocated for it, so
// a hostile file costs at most what its own size (times LZF's largest
// ratio) allows.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"unsafe"

	"example.com/byor/ch38_blocking/quicklist"
	"example.com/byor/ch38_blocking/zset"
)

// kMaxLZFRatio bounds how much larger than its compressed form an LZF
// string can be: a back reference of 3 bytes copies at most 264.
const kMaxLZFRatio = 88

// kMaxFieldExpire is the largest expiry a hash field may have in Redis
// 7.4's format (48 bits of milliseconds).
const kMaxFieldExpire = 1<<48 - 1

// errRDBShort is the error of a file that ends before its data does.
var errRDBShort = errors.New("the file ends early (cut short, or a length past its end)")

// rdbStart loads the RDB file at start, if the server keeps no
// append-only file (which, when kept, is the fuller record) and the file
// exists.
func rdbStart() error {
	if aofOn {
		aofRW.baseSize = aofWritten     // the automatic rewrite's base (aof_rewrite.go)
		rdbState.dirtyAtSave = aofDirty // the replay's changes are not new ones
		return nil
	}
	path := rdbPath()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	start := getMonotonicUsec()
	n, err := rdbLoad(data, int64(getUnixMs()))
	if err != nil {
		return fmt.Errorf("the RDB file %s cannot be loaded: %w", path, err)
	}
	rdbState.dirtyAtSave = aofDirty
	msg("DB loaded from disk: %d keys from %s in %.3f seconds", n, path, float64(getMonotonicUsec()-start)/1e6)
	return nil
}

// rdbReader reads an RDB file held in memory.
type rdbReader struct {
	b   []byte
	off int
}

// need returns the next n bytes, or errRDBShort.
func (r *rdbReader) need(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)-r.off) {
		return nil, errRDBShort
	}
	p := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return p, nil
}

// byte1 reads one byte.
func (r *rdbReader) byte1() (byte, error) {
	p, err := r.need(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// length reads a length; encoded is set (and the length is the encoding)
// for a string stored as an integer or compressed.
func (r *rdbReader) length() (n uint64, encoded bool, err error) {
	c, err := r.byte1()
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case rdb6Bit:
		return uint64(c & 0x3f), false, nil
	case rdb14Bit:
		d, err := r.byte1()
		return uint64(c&0x3f)<<8 | uint64(d), false, err
	case rdbEncVal:
		return uint64(c & 0x3f), true, nil
	}
	switch c {
	case rdb32Bit:
		p, err := r.need(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(p)), false, nil
	case rdb64Bit:
		p, err := r.need(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(p), false, nil
	}
	return 0, false, fmt.Errorf("unknown length encoding 0x%02x at byte %d", c, r.off-1)
}

// plainLen reads a length that must not be an encoded string.
func (r *rdbReader) plainLen() (uint64, error) {
	n, enc, err := r.length()
	if err == nil && enc {
		err = fmt.Errorf("a string's encoding where a length belongs, at byte %d", r.off-1)
	}
	return n, err
}

// str reads a string in any of its encodings.
func (r *rdbReader) str() (string, error) {
	n, enc, err := r.length()
	if err != nil {
		return "", err
	}
	if !enc {
		p, err := r.need(n)
		return string(p), err
	}
	switch n {
	case rdbEncInt8:
		p, err := r.need(1)
		if err != nil {
			return "", err
		}
		return strconv.Itoa(int(int8(p[0]))), nil
	case rdbEncInt16:
		p, err := r.need(2)
		if err != nil {
			return "", err
		}
		return strconv.Itoa(int(int16(binary.LittleEndian.Uint16(p)))), nil
	case rdbEncInt32:
		p, err := r.need(4)
		if err != nil {
			return "", err
		}
		return strconv.Itoa(int(int32(binary.LittleEndian.Uint32(p)))), nil
	case rdbEncLZF:
		clen, err := r.plainLen()
		if err != nil {
			return "", err
		}
		ulen, err := r.plainLen()
		if err != nil {
			return "", err
		}
		p, err := r.need(clen)
		if err != nil {
			return "", err
		}
		// The second test matters on 32-bit builds, where int(ulen) could
		// turn negative.
		if ulen/kMaxLZFRatio > clen || ulen > math.MaxInt32 {
			return "", fmt.Errorf("an LZF string of %d bytes claims to expand to %d", clen, ulen)
		}
		out, err := lzfDecompress(p, int(ulen))
		return string(out), err
	}
	return "", fmt.Errorf("unknown string encoding %d at byte %d", n, r.off-1)
}

// pair reads a hash's field and its value.
func (r *rdbReader) pair() (string, string, error) {
	f, err := r.str()
	if err != nil {
		return "", "", err
	}
	v, err := r.str()
	return f, v, err
}

// lzfDecompress expands LZF's format into exactly ulen bytes: a control
// byte below 32 starts a run of that many plus one literal bytes; any
// other is a back reference, its top 3 bits the length less 2 (7: one
// more byte adds to it), its low 5 bits and the next byte the distance
// less 1.
func lzfDecompress(in []byte, ulen int) ([]byte, error) {
	out := make([]byte, 0, ulen)
	bad := errors.New("an LZF string that does not decompress")
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 32 {
			n := ctrl + 1
			if i+n > len(in) || len(out)+n > ulen {
				return nil, bad
			}
			out = append(out, in[i:i+n]...)
			i += n
			continue
		}
		n := ctrl >> 5
		if n == 7 {
			if i >= len(in) {
				return nil, bad
			}
			n += int(in[i])
			i++
		}
		if i >= len(in) {
			return nil, bad
		}
		ref := len(out) - (ctrl&0x1f)<<8 - int(in[i]) - 1
		i++
		n += 2
		if ref < 0 || len(out)+n > ulen {
			return nil, bad
		}
		for k := 0; k < n; k++ { // byte by byte: the copy may overlap itself
			out = append(out, out[ref+k])
		}
	}
	if len(out) != ulen {
		return nil, bad
	}
	return out, nil
}

// rdbChecksum checks the checksum in the 8 bytes before end against the
// bytes before it. A checksum of 0 means the writer computed none
// (Redis's rdbchecksum no).
func rdbChecksum(data []byte, end int) error {
	want := binary.LittleEndian.Uint64(data[end-8 : end])
	if got := crc64Jones(0, data[:end-8]); want != 0 && got != want {
		return fmt.Errorf("wrong checksum: the file says %016x, its bytes give %016x", want, got)
	}
	return nil
}

// rdbLoad loads the file's keys into the key space, leaving out those
// whose time has passed at nowMs, and returns how many it loaded.
func rdbLoad(data []byte, nowMs int64) (int, error) {
	if len(data) < 9 || string(data[:5]) != "REDIS" {
		return 0, errors.New("not an RDB file (no REDIS signature)")
	}
	ver, err := strconv.Atoi(string(data[5:9]))
	if err != nil || ver < 1 || ver > rdbVersionFieldTTL {
		return 0, fmt.Errorf("RDB version %q, which this server does not read (1 to %d)", data[5:9], rdbVersionFieldTTL)
	}
	// A file that ends as files are written (EOF, then the checksum) has
	// its checksum checked here, before a key is loaded: a damaged file
	// then costs no loading. Any other end is a damage the walk below
	// finds, checking the checksum where it meets the EOF.
	checked := false
	if end := len(data); ver >= 5 && end >= 18 && data[end-9] == rdbOpEOF {
		if err := rdbChecksum(data, end); err != nil {
			return 0, err
		}
		checked = true
	}
	r := &rdbReader{b: data, off: 9}
	loaded := 0
	expireMs := int64(-1)
	for {
		op, err := r.byte1()
		if err != nil {
			return loaded, err
		}
		switch op {
		case rdbOpEOF:
			if ver >= 5 {
				if _, err := r.need(8); err != nil {
					return loaded, err
				}
				if !checked || r.off != len(data) {
					if err := rdbChecksum(data, r.off); err != nil {
						return loaded, err
					}
				}
			}
			return loaded, nil
		case rdbOpAux:
			if _, err := r.str(); err != nil {
				return loaded, err
			}
			if _, err := r.str(); err != nil {
				return loaded, err
			}
		case rdbOpSelectDB:
			db, err := r.plainLen()
			if err != nil {
				return loaded, err
			}
			if db != 0 {
				return loaded, fmt.Errorf("keys in database %d: this server has one database, 0", db)
			}
		case rdbOpResizeDB:
			if _, err := r.plainLen(); err != nil {
				return loaded, err
			}
			if _, err := r.plainLen(); err != nil {
				return loaded, err
			}
		case rdbOpExpireTimeMs:
			p, err := r.need(8)
			if err != nil {
				return loaded, err
			}
			expireMs = int64(binary.LittleEndian.Uint64(p))
		case rdbOpExpireTime:
			p, err := r.need(4)
			if err != nil {
				return loaded, err
			}
			expireMs = int64(binary.LittleEndian.Uint32(p)) * 1000
		case rdbOpIdle:
			if _, err := r.plainLen(); err != nil {
				return loaded, err
			}
		case rdbOpFreq:
			if _, err := r.byte1(); err != nil {
				return loaded, err
			}
		case rdbOpModuleAux, rdbOpFunction2:
			return loaded, fmt.Errorf("a module's or a function's data (opcode %d), which this server does not have", op)
		default:
			ent, err := r.value(op, nowMs)
			if err != nil {
				return loaded, err
			}
			at := expireMs
			expireMs = -1
			// -1 is no expiry; any other time before now (one before
			// 1970 included) has passed, as Redis compares it.
			if ent == nil || at != -1 && at <= nowMs {
				continue // empty, or its time has passed: as Redis's master loads
			}
			if lookupEntry(ent.key()) != nil {
				return loaded, fmt.Errorf("the key %q twice", ent.key())
			}
			insertEntry(ent)
			if at >= 0 {
				entrySetExpireAt(ent, at) // the very millisecond, as PEXPIRETIME reads it back
			}
			if ent.typ() == tHash {
				hashTimerUpdate(ent)
			}
			loaded++
		}
	}
}

// value reads a key and its value of type typ, and returns a new entry
// (nil for an empty container), not yet in the key space.
func (r *rdbReader) value(typ byte, nowMs int64) (*entry, error) {
	key, err := r.str()
	if err != nil {
		return nil, err
	}
	switch typ {
	case rdbTypeString:
		v, err := r.str()
		if err != nil {
			return nil, err
		}
		return newEntry(key, []byte(v)), nil
	case rdbTypeHash:
		n, err := r.plainLen()
		if err != nil {
			return nil, err
		}
		ent := newHashEntry(key)
		for range n {
			f, v, err := r.pair()
			if err != nil {
				return nil, err
			}
			ent.obj.hash.Set(uint64(nowMs), f, v)
		}
		return nonEmpty(ent), nil
	case rdbTypeHashMeta:
		p, err := r.need(8)
		if err != nil {
			return nil, err
		}
		minAt := binary.LittleEndian.Uint64(p)
		n, err := r.plainLen()
		if err != nil {
			return nil, err
		}
		ent := newHashEntry(key)
		for range n {
			ttl, err := r.plainLen()
			if err != nil {
				return nil, err
			}
			f, v, err := r.pair()
			if err != nil {
				return nil, err
			}
			if ttl == 0 {
				ent.obj.hash.Set(uint64(nowMs), f, v)
				continue
			}
			at := ttl + minAt - 1
			if ttl > kMaxFieldExpire || minAt > kMaxFieldExpire || at > kMaxFieldExpire {
				return nil, fmt.Errorf("the key %q: a field's expiry past Redis's largest", key)
			}
			ent.obj.hash.SetExpireAt(uint64(nowMs), f, v, at) // a time past deletes it
		}
		return nonEmpty(ent), nil
	case rdbTypeZSet, rdbTypeZSet2:
		n, err := r.plainLen()
		if err != nil {
			return nil, err
		}
		ent := newZSetEntry(key)
		for range n {
			m, err := r.str()
			if err != nil {
				return nil, err
			}
			score, err := r.score(typ)
			if err != nil {
				return nil, err
			}
			ent.obj.zset.Add(m, score)
		}
		return nonEmpty(ent), nil
	case rdbTypeHashLP, rdbTypeZSetLP:
		blob, err := r.str()
		if err != nil {
			return nil, err
		}
		items, err := listpackItems(blob)
		if err != nil {
			return nil, fmt.Errorf("the key %q: %w", key, err)
		}
		if len(items)%2 != 0 {
			return nil, fmt.Errorf("the key %q: a listpack of %d items, not pairs", key, len(items))
		}
		if typ == rdbTypeHashLP {
			ent := newHashEntry(key)
			for i := 0; i < len(items); i += 2 {
				ent.obj.hash.Set(uint64(nowMs), items[i], items[i+1])
			}
			return nonEmpty(ent), nil
		}
		ent := newZSetEntry(key)
		for i := 0; i < len(items); i += 2 {
			score, err := strconv.ParseFloat(items[i+1], 64)
			if err != nil || math.IsNaN(score) {
				return nil, fmt.Errorf("the key %q: the score %q", key, items[i+1])
			}
			ent.obj.zset.Add(items[i], score)
		}
		return nonEmpty(ent), nil
	case rdbTypeList, rdbTypeListQuicklist2:
		return r.list(key, typ)
	}
	return nil, fmt.Errorf("the key %q has type %d, which this server does not hold (it has strings, hashes, sorted sets and lists; Redis 7.0 writes small ones as listpacks, 16 and 17, and lists as 18)", key, typ)
}

// list reads the list key of type typ: a count and that many elements
// (RDB_TYPE_LIST), or that many nodes, each one element (PLAIN) or a
// listpack of them (PACKED), whose integers come back as their text.
// The elements are pushed into a list of this server's own nodes, as
// strings. An empty listpack adds nothing, and an empty list is left
// out, as Redis 7.0 leaves them (nil).
func (r *rdbReader) list(key string, typ byte) (*entry, error) {
	n, err := r.plainLen()
	if err != nil {
		return nil, err
	}
	l := &quicklist.List{}
	// PushTail copies v into its node: no copy of it as bytes first.
	push := func(v string) { l.PushTail(unsafe.Slice(unsafe.StringData(v), len(v))) }
	for range n {
		container := uint64(rdbContainerPlain) // RDB_TYPE_LIST's elements
		if typ == rdbTypeListQuicklist2 {
			if container, err = r.plainLen(); err != nil {
				return nil, err
			}
		}
		v, err := r.str()
		if err != nil {
			return nil, err
		}
		switch container {
		case rdbContainerPlain:
			push(v)
		case rdbContainerPacked:
			items, err := listpackItems(v)
			if err != nil {
				return nil, fmt.Errorf("the key %q: %w", key, err)
			}
			for _, it := range items {
				push(it)
			}
		default:
			return nil, fmt.Errorf("the key %q: a list node of container %d (1 and 2 are Redis's)", key, container)
		}
	}
	ent := newEntry(key, nil)
	ent.obj = &object{list: l}
	return nonEmpty(ent), nil
}

// score reads a sorted set's score: a binary double (ZSET_2), or text
// with a length byte, 253 to 255 standing for NaN, +inf and -inf.
func (r *rdbReader) score(typ byte) (float64, error) {
	var f float64
	if typ == rdbTypeZSet2 {
		p, err := r.need(8)
		if err != nil {
			return 0, err
		}
		f = math.Float64frombits(binary.LittleEndian.Uint64(p))
	} else {
		n, err := r.byte1()
		if err != nil {
			return 0, err
		}
		switch n {
		case 253:
			f = math.NaN()
		case 254:
			f = math.Inf(1)
		case 255:
			f = math.Inf(-1)
		default:
			p, err := r.need(uint64(n))
			if err != nil {
				return 0, err
			}
			if f, err = strconv.ParseFloat(string(p), 64); err != nil {
				return 0, fmt.Errorf("the score %q", p)
			}
		}
	}
	if math.IsNaN(f) {
		return 0, errors.New("a score that is not a number")
	}
	return f, nil
}

// newHashEntry and newZSetEntry return a new, empty entry of their type.
func newHashEntry(key string) *entry {
	ent := newEntry(key, nil)
	ent.obj = &object{hash: &hashValue{timerIdx: -1}}
	return ent
}

func newZSetEntry(key string) *entry {
	ent := newEntry(key, nil)
	ent.obj = &object{zset: &zset.ZSet{}}
	return ent
}

// nonEmpty returns ent, or nil if its container is empty.
func nonEmpty(ent *entry) *entry {
	if containerLen(ent) == 0 {
		return nil
	}
	return ent
}

// listpackItems reads a listpack: its total size (4 bytes) and count (2
// bytes), its entries, each an encoding, its data and its length again
// backwards, and an end byte 0xff. Integers come back as their decimal
// text, as Redis reads them.
func listpackItems(lp string) ([]string, error) {
	bad := func(what string) error { return fmt.Errorf("a bad listpack: %s", what) }
	if len(lp) < 7 || int(binary.LittleEndian.Uint32([]byte(lp[:4]))) != len(lp) {
		return nil, bad("its size is not its length")
	}
	var items []string
	i := 6
	for {
		if i >= len(lp) {
			return nil, bad("no end byte")
		}
		c := lp[i]
		if c == 0xff {
			if i != len(lp)-1 {
				return nil, bad("bytes after the end")
			}
			return items, nil
		}
		var head, dlen int // the encoding's bytes, the data's
		var ival int64
		isInt := true
		rest := len(lp) - i
		switch {
		case c&0x80 == 0: // 7-bit unsigned
			head, ival = 1, int64(c&0x7f)
		case c&0xc0 == 0x80: // string, 6-bit length
			head, dlen, isInt = 1, int(c&0x3f), false
		case c&0xe0 == 0xc0: // 13-bit signed
			if rest < 2 {
				return nil, bad("cut short")
			}
			head, ival = 2, int64(c&0x1f)<<8|int64(lp[i+1])
			if ival >= 1<<12 {
				ival -= 1 << 13
			}
		case c&0xf0 == 0xe0: // string, 12-bit length
			if rest < 2 {
				return nil, bad("cut short")
			}
			head, dlen, isInt = 2, int(c&0x0f)<<8|int(lp[i+1]), false
		case c == 0xf0: // string, 32-bit length
			if rest < 5 {
				return nil, bad("cut short")
			}
			// Compared before it becomes an int, which is 32 bits on
			// some builds.
			size := binary.LittleEndian.Uint32([]byte(lp[i+1 : i+5]))
			if uint64(size) > uint64(rest-5) {
				return nil, bad("a string past its end")
			}
			head, dlen, isInt = 5, int(size), false
		case c >= 0xf1 && c <= 0xf4: // 16, 24, 32, 64-bit signed
			size := [...]int{2, 3, 4, 8}[c-0xf1]
			if rest < 1+size {
				return nil, bad("cut short")
			}
			var u uint64
			for k := size - 1; k >= 0; k-- {
				u = u<<8 | uint64(lp[i+1+k])
			}
			shift := 64 - 8*size
			head, ival = 1+size, int64(u<<shift)>>shift
		default:
			return nil, bad(fmt.Sprintf("the encoding 0x%02x", c))
		}
		if dlen > rest-head {
			return nil, bad("a string past its end")
		}
		if isInt {
			items = append(items, strconv.FormatInt(ival, 10))
		} else {
			items = append(items, lp[i+head:i+head+dlen])
		}
		n := head + dlen
		back := 5 // the length again, in 1 to 5 bytes (Redis's thresholds)
		for k, limit := range [...]int{128, 16383, 2097151, 268435455} {
			if n < limit {
				back = k + 1
				break
			}
		}
		i += n + back
	}
}
