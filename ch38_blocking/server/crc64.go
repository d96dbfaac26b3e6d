package server

import "encoding/binary"

// Redis's CRC-64, the checksum at the end of an RDB file: Jones's
// polynomial, reflected (0x95ac9329ac4bc9b5), starting from 0, with no
// final inversion. A snapshot checksums every byte it writes, and a load
// every byte it reads, so the loop pays for it on files of gigabytes: it
// takes eight bytes a step (slicing by eight): 1.6 GB/s here, four
// times a byte a step's (BenchmarkCRC64, BenchmarkCRC64Bytes).

// crcTables[0] is the table of one byte: the CRC of byte i followed by
// nothing. crcTables[k] carries that on over k more zero bytes, so that
// the eight bytes of a word are looked up at once, each in the table of
// how far it is from the word's end.
var crcTables = func() (t [8][256]uint64) {
	const poly = 0x95ac9329ac4bc9b5
	for i := range t[0] {
		c := uint64(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range t[0] {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = t[0][byte(c)] ^ c>>8
			t[k][i] = c
		}
	}
	return t
}()

// crc64Jones carries crc on over b.
func crc64Jones(crc uint64, b []byte) uint64 {
	t := &crcTables
	for ; len(b) >= 8; b = b[8:] {
		crc ^= binary.LittleEndian.Uint64(b)
		crc = t[7][byte(crc)] ^ t[6][byte(crc>>8)] ^ t[5][byte(crc>>16)] ^ t[4][byte(crc>>24)] ^
			t[3][byte(crc>>32)] ^ t[2][byte(crc>>40)] ^ t[1][byte(crc>>48)] ^ t[0][byte(crc>>56)]
	}
	for _, c := range b {
		crc = t[0][byte(crc)^c] ^ crc>>8
	}
	return crc
}
