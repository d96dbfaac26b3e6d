package proto

import (
	"encoding/binary"
)

// A reply is one serialized value: a tag byte saying its type, then the
// type's payload. Arrays hold further values, so replies can nest.
const (
	SerNil = 0 // nothing follows
	SerErr = 1 // int32 code, uint32 length, message
	SerStr = 2 // uint32 length, bytes
	SerInt = 3 // int64
	SerArr = 4 // uint32 count, then that many values
)

// Error codes carried by SerErr values.
const (
	CodeUnknown = 1 // unknown command
	Code2Big    = 2 // the reply would not fit in one message
)

// The Out functions append one serialized value to out and return the
// extended slice, in the manner of append.

// OutNil appends a nil.
func OutNil(out []byte) []byte {
	// exercise: ch09-serialize
	return append(out, SerNil)
	// end exercise: ch09-serialize
}

// OutStr appends a string.
func OutStr(out []byte, val string) []byte {
	// exercise: ch09-serialize
	out = append(out, SerStr)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(val)))
	return append(out, val...)
	// end exercise: ch09-serialize
}

// OutInt appends a 64-bit integer.
func OutInt(out []byte, val int64) []byte {
	// exercise: ch09-serialize
	out = append(out, SerInt)
	return binary.LittleEndian.AppendUint64(out, uint64(val))
	// end exercise: ch09-serialize
}

// OutErr appends an error code and message.
func OutErr(out []byte, code int32, msg string) []byte {
	// exercise: ch09-serialize
	out = append(out, SerErr)
	out = binary.LittleEndian.AppendUint32(out, uint32(code))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(msg)))
	return append(out, msg...)
	// end exercise: ch09-serialize
}

// OutArr appends the header of an array of n values; the caller appends
// the values after it.
func OutArr(out []byte, n uint32) []byte {
	// exercise: ch09-serialize
	out = append(out, SerArr)
	return binary.LittleEndian.AppendUint32(out, n)
	// end exercise: ch09-serialize
}
