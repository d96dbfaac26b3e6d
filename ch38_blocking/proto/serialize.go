package proto

import (
	"encoding/binary"
	"math"
)

// A reply is one serialized value: a tag byte saying its type, then the
// type's payload. Arrays hold further values, so replies can nest.
const (
	SerNil = 0 // nothing follows
	SerErr = 1 // int32 code, uint32 length, message
	SerStr = 2 // uint32 length, bytes
	SerInt = 3 // int64
	SerDbl = 4 // float64
	SerArr = 5 // uint32 count, then that many values
)

// Error codes carried by SerErr values.
const (
	CodeUnknown = 1 // unknown command
	Code2Big    = 2 // the reply would not fit in one message
	CodeType    = 3 // the key holds the wrong type of value
	CodeArg     = 4 // an argument is not a valid number
)

// The Out functions append one serialized value to out and return the
// extended slice, in the manner of append.

// OutNil appends a nil.
func OutNil(out []byte) []byte {
	return append(out, SerNil)
}

// OutStr appends a string.
func OutStr(out []byte, val string) []byte {
	out = append(out, SerStr)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(val)))
	return append(out, val...)
}

// OutInt appends a 64-bit integer.
func OutInt(out []byte, val int64) []byte {
	out = append(out, SerInt)
	return binary.LittleEndian.AppendUint64(out, uint64(val))
}

// OutDbl appends a 64-bit float.
func OutDbl(out []byte, val float64) []byte {
	out = append(out, SerDbl)
	return binary.LittleEndian.AppendUint64(out, math.Float64bits(val))
}

// OutErr appends an error code and message.
func OutErr(out []byte, code int32, msg string) []byte {
	out = append(out, SerErr)
	out = binary.LittleEndian.AppendUint32(out, uint32(code))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(msg)))
	return append(out, msg...)
}

// OutArr appends the header of an array of n values; the caller appends
// the values after it.
func OutArr(out []byte, n uint32) []byte {
	out = append(out, SerArr)
	return binary.LittleEndian.AppendUint32(out, n)
}

// OutUpdateArr sets the count of the array that out starts with (pass the
// slice from the array's header on), for a reply whose length is only known
// once its elements are written.
func OutUpdateArr(out []byte, n uint32) {
	if out[0] != SerArr {
		panic("OutUpdateArr: the reply is not an array")
	}
	binary.LittleEndian.PutUint32(out[1:], n)
}
