package server

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"

	"example.com/byor/ch38_blocking/resp"
)

// The bit commands: SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP. A string
// is an array of bits, the first byte's highest bit first; past its end,
// every bit is 0.

// errBitOffset is Redis's error for a bit offset that is not an integer,
// is negative, or lies past the longest string (maxAppend bytes).
const errBitOffset = "ERR bit offset is not an integer or out of range"

// parseBitOffset reads a bit offset, or answers the error.
func parseBitOffset(w *respWriter, arg []byte) (int64, bool) {
	off, ok := respInt(arg)
	if !ok || off < 0 || off>>3 >= int64(maxAppend) {
		w.err(errBitOffset)
		return 0, false
	}
	return off, true
}

// bitAt returns the bit at off in s.
func bitAt(s string, off int64) int {
	if off>>3 >= int64(len(s)) {
		return 0
	}
	return int(s[off>>3]>>(7-off&7)) & 1
}

// respSetBit: SETBIT key offset 0|1 sets one bit, growing the string with
// zero bytes to reach it, and answers the bit it was.
func respSetBit(st *respState, w *respWriter, args [][]byte) {
	off, ok := parseBitOffset(w, args[2])
	if !ok {
		return
	}
	on, ok := respInt(args[3])
	if !ok || on&^1 != 0 {
		w.err("ERR bit is not an integer or out of range")
		return
	}
	ent, old, ok := respStringVal(w, args[1])
	if !ok {
		return
	}
	was := bitAt(old, off)
	if ent == nil || off>>3 >= int64(len(old)) || int64(was) != on {
		// A new byte, or a bit that changes: one byte written in place.
		b := byte(0)
		if off>>3 < int64(len(old)) {
			b = old[off>>3]
		}
		b = b&^(1<<(7-off&7)) | byte(on)<<(7-off&7)
		if ent == nil {
			ent = newEntry(args[1], nil)
			insertEntry(ent)
		}
		writeAt(ent, int(off>>3), []byte{b})
	}
	w.outInt(int64(was))
}

// respGetBit: GETBIT key offset answers one bit; 0 past the string's end
// or for a missing key.
func respGetBit(st *respState, w *respWriter, args [][]byte) {
	off, ok := parseBitOffset(w, args[2])
	if !ok {
		return
	}
	if ent := stringFor(w, args[1], replyZero); ent != nil {
		w.outInt(int64(bitAt(ent.val(), off)))
	}
}

// parseBitUnit reads a range's unit, BYTE or BIT, or answers a syntax
// error; isBit says which.
func parseBitUnit(w *respWriter, arg []byte) (isBit, ok bool) {
	switch {
	case cmdIs(arg, "bit"):
		return true, true
	case cmdIs(arg, "byte"):
		return false, true
	}
	w.err(errSyntax)
	return false, false
}

// bitSpan turns a range already placed within a string (start <= end),
// in bytes or in bits, into the first and last bit it covers.
func bitSpan(start, end int64, isBit bool) (from, to int64) {
	if isBit {
		return start, end
	}
	return start * 8, end*8 + 7
}

// respBitCount: BITCOUNT key [start end [BYTE|BIT]] counts the bits set in
// the range (cmd_string_range.go), by default the whole string. As Redis 7.0 does,
// the key is looked at first: a missing key answers 0 whatever follows.
func respBitCount(st *respState, w *respWriter, args [][]byte) {
	ent := stringFor(w, args[1], replyZero)
	if ent == nil {
		return
	}
	val := ent.val()
	n := int64(len(val))
	from, to := int64(0), n*8-1
	switch len(args) {
	case 2:
	case 4, 5:
		r, ok := parseRange(w, args[2], args[3])
		if !ok {
			return
		}
		if r.start < 0 && r.end < 0 && r.start > r.end {
			w.outInt(0) // before the unit is read, as Redis has it
			return
		}
		isBit := false
		if len(args) == 5 {
			if isBit, ok = parseBitUnit(w, args[4]); !ok {
				return
			}
		}
		units := n
		if isBit {
			units *= 8
		}
		start, end, empty := r.within(units)
		if empty {
			w.outInt(0)
			return
		}
		from, to = bitSpan(start, end, isBit)
	default:
		w.err(errSyntax)
		return
	}
	w.outInt(countBits(val, from, to))
}

// countBits counts the bits set in s from bit from to bit to, both
// included (an empty span, to < from, counts 0), charging the bytes read.
func countBits(s string, from, to int64) int64 {
	// exercise: ch28-bit-spans
	if to < from {
		return 0
	}
	first, last := from>>3, to>>3
	chargeBytes(int(last - first + 1))
	count := 0
	for i := first; i <= last; {
		// Whole words only strictly between the first and the last
		// byte: those two may hold bits outside the span (spanMask).
		if i > first && i+8 <= last {
			count += bits.OnesCount64(word(s, i))
			i += 8
			continue
		}
		count += bits.OnesCount8(s[i] & spanMask(i, from, to))
		i++
	}
	return int64(count)
	// end exercise: ch28-bit-spans
}

// word returns the 8 bytes of s from i on as one word, the first lowest
// (binary.LittleEndian's order, which BITOP combines it with; the order
// does not matter to a count, nor to a test for all zeros or all ones).
func word(s string, i int64) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// spanMask returns the bits of byte i that lie within bits from..to.
func spanMask(i, from, to int64) byte {
	// exercise: ch28-bit-spans
	m := byte(0xff)
	if i == from>>3 {
		m &= 0xff >> (from & 7)
	}
	if i == to>>3 {
		m &= 0xff << (7 - to&7)
	}
	return m
	// end exercise: ch28-bit-spans
}

// firstBit returns the offset of the first bit equal to bit in s from bit
// from to bit to, both included, or -1 if there is none; it charges the
// bytes read.
func firstBit(s string, from, to int64, bit int) int64 {
	// exercise: ch28-bit-spans
	flip := byte(0xff) // looking for a 0 is looking for a 1 in ^b
	if bit == 1 {
		flip = 0
	}
	first, last := from>>3, to>>3
	for i := first; i <= last; {
		if i > first && i+8 <= last { // as in countBits
			if w := word(s, i); bit == 1 && w == 0 || bit == 0 && w == ^uint64(0) {
				i += 8
				continue
			}
		}
		if b := (s[i] ^ flip) & spanMask(i, from, to); b != 0 {
			chargeBytes(int(i - first + 1))
			return i*8 + int64(bits.LeadingZeros8(b))
		}
		i++
	}
	chargeBytes(int(last - first + 1))
	return -1
	// end exercise: ch28-bit-spans
}

// respBitPos: BITPOS key bit [start [end [BYTE|BIT]]] answers the offset
// of the first bit equal to bit in the range, or -1. A missing key is all
// zeros: 0 for a 0, -1 for a 1. Looking for a 0 with no end given, the
// string counts as followed by zeros: the first is just past its end.
func respBitPos(st *respState, w *respWriter, args [][]byte) {
	bit, ok := respInt(args[2])
	if !ok {
		w.err(errNotInt)
		return
	}
	if bit != 0 && bit != 1 {
		w.err("ERR The bit argument must be 1 or 0.")
		return
	}
	ent, ok := respString(w, args[1])
	if !ok {
		return
	}
	if ent == nil {
		w.outInt(-bit)
		return
	}
	val := ent.val()
	n := int64(len(val))
	r := strRange{0, n - 1}
	isBit, endGiven := false, false
	switch len(args) {
	case 3:
	case 4, 5, 6:
		if r.start, ok = respInt(args[3]); !ok {
			w.err(errNotInt)
			return
		}
		if len(args) == 6 {
			if isBit, ok = parseBitUnit(w, args[5]); !ok {
				return
			}
		}
		switch {
		case len(args) >= 5:
			if r.end, ok = respInt(args[4]); !ok {
				w.err(errNotInt)
				return
			}
			endGiven = true
		case isBit:
			r.end = n*8 + 7
		default:
			r.end = n - 1
		}
	default:
		w.err(errSyntax)
		return
	}
	units := n
	if isBit {
		units *= 8
	}
	start, end := r.clamp(units)
	if start > end {
		w.outInt(-1)
		return
	}
	from, to := bitSpan(start, end, isBit)
	pos := firstBit(val, from, to, int(bit))
	if pos == -1 && bit == 0 && !endGiven {
		pos = n * 8
	}
	w.outInt(pos)
}

// kBitOpMaxBytes bounds the bytes of its sources one BITOP reads: two
// values of the longest size. Redis has no such bound; here a BITOP past
// it is refused, for one request naming a long string many times would
// otherwise hold the loop for as long as it takes to read it each time.
var kBitOpMaxBytes = 2 * resp.MaxBulkLen

// errBitOpTooLong refuses a BITOP past kBitOpMaxBytes.
func errBitOpTooLong() string {
	return "ERR BITOP is refused over more than " + strconv.Itoa(kBitOpMaxBytes) +
		" bytes of sources: reading them would stall the server"
}

// respBitOp: BITOP AND|OR|XOR|NOT destkey key [key ...] stores the bitwise
// operation of the strings at the keys (a missing one is empty; a shorter
// one is padded with zeros) at destkey, as long as the longest, and answers
// its length. An empty result deletes destkey. NOT takes one key.
//
// Each source is read once, a word at a time, and the work charged is the
// bytes read and written: past the shortest source an AND is all zeros,
// which the fresh result already holds, so it reads the others only up to
// there, however many sources are shorter or missing.
func respBitOp(st *respState, w *respWriter, args [][]byte) {
	op := args[1]
	switch {
	case cmdIs(op, "and"), cmdIs(op, "or"), cmdIs(op, "xor"):
	case cmdIs(op, "not"):
		if len(args) != 4 {
			w.err("ERR BITOP NOT must be called with a single source key.")
			return
		}
	default:
		w.err(errSyntax)
		return
	}
	srcs := make([]string, 0, len(args)-3)
	longest, shortest, total := 0, math.MaxInt, 0
	for _, k := range args[3:] {
		ent, ok := respString(w, k)
		if !ok {
			return
		}
		s := ""
		if ent != nil {
			s = ent.val()
		}
		srcs = append(srcs, s)
		longest, shortest = max(longest, len(s)), min(shortest, len(s))
		if total += len(s); total > kBitOpMaxBytes {
			w.err(errBitOpTooLong())
			return
		}
	}
	if longest == 0 {
		deleteKey(args[2])
		w.outInt(0)
		return
	}
	res := make([]byte, longest)
	read := bitOpInto(res, srcs, op, shortest)
	chargeBytes(read + longest)
	storeString(args[2], res, false)
	w.outInt(int64(longest))
}

// bitOpInto combines srcs into res, which is zeros and as long as the
// longest, by op (AND, OR, XOR or NOT; shortest is the shortest source's
// length), and returns the bytes it read.
func bitOpInto(res []byte, srcs []string, op []byte, shortest int) int {
	switch {
	case cmdIs(op, "not"):
		copy(res, srcs[0])
		notBytes(res)
		return len(srcs[0])
	case cmdIs(op, "and"):
		copy(res, srcs[0][:shortest])
		for _, s := range srcs[1:] {
			andBytes(res[:shortest], s[:shortest])
		}
		return shortest * len(srcs)
	}
	xor := cmdIs(op, "xor")
	copy(res, srcs[0])
	read := len(srcs[0])
	for _, s := range srcs[1:] {
		if xor {
			xorBytes(res[:len(s)], s)
		} else {
			orBytes(res[:len(s)], s)
		}
		read += len(s)
	}
	return read
}

// andBytes, orBytes and xorBytes combine s into dst, as long as s, and
// notBytes flips dst: 8 bytes at a time, then the bytes left over.
func andBytes(dst []byte, s string) {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])&word(s, int64(i)))
	}
	for ; i < len(s); i++ {
		dst[i] &= s[i]
	}
}

func orBytes(dst []byte, s string) {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])|word(s, int64(i)))
	}
	for ; i < len(s); i++ {
		dst[i] |= s[i]
	}
}

func xorBytes(dst []byte, s string) {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])^word(s, int64(i)))
	}
	for ; i < len(s); i++ {
		dst[i] ^= s[i]
	}
}

func notBytes(dst []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], ^binary.LittleEndian.Uint64(dst[i:]))
	}
	for ; i < len(dst); i++ {
		dst[i] = ^dst[i]
	}
}
