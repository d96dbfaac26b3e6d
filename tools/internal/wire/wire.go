// Package wire encodes and decodes the book's client/server protocol as it
// stands from chapter 11 on: length-prefixed requests made of a list of
// strings, and length-prefixed replies holding one serialized value.
//
// All integers are little-endian. A request body is u32 nstr followed by
// nstr times (u32 len, bytes); a reply body is a tag byte and its payload.
// Every message body is at most MaxMsg bytes.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Protocol limits shared with the server (the book's k_max_msg and k_max_args).
const (
	MaxMsg  = 4096
	MaxArgs = 1024
)

// MaxDepth bounds how deeply arrays may nest in a decoded reply. Real replies
// nest at most one level; the bound keeps hostile input from recursing deeply.
const MaxDepth = 64

// Tag is the type byte that starts every serialized value.
type Tag byte

// Value tags, numbered as in chapter 11 and later (chapters 09-10 used 4 for
// arrays; chapter 11 gave 4 to doubles and moved arrays to 5).
const (
	TagNil Tag = 0 // no payload
	TagErr Tag = 1 // i32 code, u32 len, message
	TagStr Tag = 2 // u32 len, bytes
	TagInt Tag = 3 // i64
	TagDbl Tag = 4 // f64
	TagArr Tag = 5 // u32 n, then n values
)

// tagNames are the tags' names, in the order of their numbers.
var tagNames = [...]string{TagNil: "nil", TagErr: "err", TagStr: "str", TagInt: "int", TagDbl: "dbl", TagArr: "arr"}

func (t Tag) String() string {
	if int(t) < len(tagNames) {
		return tagNames[t]
	}
	return fmt.Sprintf("tag(%d)", byte(t))
}

// Errors returned by the decoders; they are wrapped with the offending offset.
var (
	ErrTruncated = errors.New("wire: truncated value")
	ErrBadTag    = errors.New("wire: unknown tag")
	ErrTooDeep   = errors.New("wire: arrays nested too deeply")
	ErrTrailing  = errors.New("wire: trailing bytes after value")
	ErrTooBig    = errors.New("wire: message longer than the protocol maximum")
	ErrTooMany   = errors.New("wire: too many request arguments")
)

// Value is one decoded reply value. Only the fields of its Tag are set.
type Value struct {
	Tag  Tag
	Code int32   // TagErr: the error code
	Str  []byte  // TagStr: the string; TagErr: the message. Aliases the decoded input.
	Int  int64   // TagInt
	Dbl  float64 // TagDbl
	Arr  []Value // TagArr
}

// String renders the value briefly, for error messages.
func (v Value) String() string {
	switch v.Tag {
	case TagNil:
		return "(nil)"
	case TagErr:
		return fmt.Sprintf("(err) %d %q", v.Code, v.Str)
	case TagStr:
		if len(v.Str) > 32 {
			return fmt.Sprintf("(str) %q... len=%d", v.Str[:32], len(v.Str))
		}
		return fmt.Sprintf("(str) %q", v.Str)
	case TagInt:
		return fmt.Sprintf("(int) %d", v.Int)
	case TagDbl:
		return fmt.Sprintf("(dbl) %g", v.Dbl)
	case TagArr:
		return fmt.Sprintf("(arr) len=%d", len(v.Arr))
	}
	return fmt.Sprintf("(%v)", v.Tag)
}

// AppendRequest appends one framed request (length header included) holding
// args to dst. It fails, leaving dst unchanged, if the request would not fit
// the protocol's limits.
func AppendRequest[S ~string | ~[]byte](dst []byte, args ...S) ([]byte, error) {
	if len(args) > MaxArgs {
		return dst, ErrTooMany
	}
	body := 4
	for _, a := range args {
		body += 4 + len(a)
	}
	if body > MaxMsg {
		return dst, fmt.Errorf("%w: request body of %d bytes", ErrTooBig, body)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(body))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(args)))
	for _, a := range args {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(a)))
		dst = append(dst, a...)
	}
	return dst, nil
}

// AppendRawRequest appends one framed request holding args to dst, like
// AppendRequest but whatever its size: for tests that send requests over
// the limits on purpose.
func AppendRawRequest[S ~string | ~[]byte](dst []byte, args ...S) []byte {
	body := 4
	for _, a := range args {
		body += 4 + len(a)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(body))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(args)))
	for _, a := range args {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(a)))
		dst = append(dst, a...)
	}
	return dst
}

// ParseRequest splits a request body (without its length header) into its
// strings, rejecting the same malformed bodies the server does.
func ParseRequest(body []byte) ([]string, error) {
	if len(body) > MaxMsg {
		return nil, ErrTooBig
	}
	if len(body) >= 4 && binary.LittleEndian.Uint32(body) > MaxArgs {
		return nil, ErrTooMany
	}
	return SplitRequest(body)
}

// SplitRequest splits a request body into its strings as ParseRequest
// does, but whatever its size and number of strings: for showing requests
// of any profile (the newer edition's limits are larger).
func SplitRequest(body []byte) ([]string, error) {
	if len(body) < 4 {
		return nil, fmt.Errorf("%w: missing nstr", ErrTruncated)
	}
	n := binary.LittleEndian.Uint32(body)
	if uint64(n) > uint64(len(body)/4) {
		return nil, fmt.Errorf("%w: %d strings cannot fit %d bytes", ErrTruncated, n, len(body))
	}
	args := make([]string, 0, n)
	pos := 4
	for range n {
		if len(body)-pos < 4 {
			return nil, fmt.Errorf("%w at offset %d", ErrTruncated, pos)
		}
		l := binary.LittleEndian.Uint32(body[pos:])
		pos += 4
		if uint64(l) > uint64(len(body)-pos) {
			return nil, fmt.Errorf("%w at offset %d", ErrTruncated, pos)
		}
		args = append(args, string(body[pos:pos+int(l)]))
		pos += int(l)
	}
	if pos != len(body) {
		return nil, fmt.Errorf("%w at offset %d", ErrTrailing, pos)
	}
	return args, nil
}

// ReadFrame reads one length-prefixed message from r into buf (grown if its
// capacity is below MaxMsg) and returns the body. A length over MaxMsg is an
// error: the stream can no longer be trusted.
func ReadFrame(r io.Reader, buf []byte) ([]byte, error) {
	return ReadFrameMax(r, buf, MaxMsg)
}

// ReadFrameMax is ReadFrame with a limit of limit bytes instead of MaxMsg
// (the newer edition's messages go up to 32 MiB). A header that arrives
// only in part is io.ErrUnexpectedEOF; none at all, io.EOF.
func ReadFrameMax(r io.Reader, buf []byte, limit int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if int64(n) > int64(limit) {
		return nil, fmt.Errorf("%w: frame of %d bytes", ErrTooBig, n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, max(int(n), min(limit, MaxMsg)))
	}
	body := buf[:n]
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// AppendFrame appends body to dst behind its u32 length header.
func AppendFrame(dst, body []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(body)))
	return append(dst, body...)
}

// AppendNil appends a serialized nil.
func AppendNil(dst []byte) []byte { return append(dst, byte(TagNil)) }

// AppendErr appends a serialized error with its code and message.
func AppendErr(dst []byte, code int32, msg string) []byte {
	dst = append(dst, byte(TagErr))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(code))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// AppendStr appends a serialized string.
func AppendStr[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, byte(TagStr))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

// AppendInt appends a serialized int64.
func AppendInt(dst []byte, v int64) []byte {
	dst = append(dst, byte(TagInt))
	return binary.LittleEndian.AppendUint64(dst, uint64(v))
}

// AppendDbl appends a serialized float64.
func AppendDbl(dst []byte, v float64) []byte {
	dst = append(dst, byte(TagDbl))
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendArr appends an array header; the caller appends the n elements.
func AppendArr(dst []byte, n uint32) []byte {
	dst = append(dst, byte(TagArr))
	return binary.LittleEndian.AppendUint32(dst, n)
}

// AppendValue appends v, recursively, in its serialized form.
func AppendValue(dst []byte, v Value) []byte {
	switch v.Tag {
	case TagNil:
		return AppendNil(dst)
	case TagErr:
		return AppendErr(dst, v.Code, string(v.Str))
	case TagStr:
		return AppendStr(dst, v.Str)
	case TagInt:
		return AppendInt(dst, v.Int)
	case TagDbl:
		return AppendDbl(dst, v.Dbl)
	case TagArr:
		dst = AppendArr(dst, uint32(len(v.Arr)))
		for _, e := range v.Arr {
			dst = AppendValue(dst, e)
		}
		return dst
	}
	return append(dst, byte(v.Tag))
}

// Decode parses one value from the front of b and reports how many bytes it
// used. Bytes after the value are left alone. Malformed or truncated input
// yields an error, never a panic.
func Decode(b []byte) (Value, int, error) {
	return Tags11.Decode(b)
}

// Tags says which byte stands for which kind of value, since the numbering
// changed between chapters: Tags09 for chapters 09-10 (no doubles, arrays
// are 4), Tags11 from chapter 11 on (doubles 4, arrays 5). Nil, err, str
// and int are 0-3 throughout.
type Tags struct {
	Arr    byte
	Dbl    byte
	HasDbl bool
}

// The two numberings the book uses.
var (
	Tags09 = Tags{Arr: 4}
	Tags11 = Tags{Arr: 5, Dbl: 4, HasDbl: true}
)

// kind maps a tag byte to the Tag it stands for under t.
func (t Tags) kind(b byte) (Tag, bool) {
	switch {
	case b == t.Arr:
		return TagArr, true
	case t.HasDbl && b == t.Dbl:
		return TagDbl, true
	case b <= byte(TagInt):
		return Tag(b), true
	}
	return 0, false
}

// byteOf is the tag byte written for a value of kind tag under t.
func (t Tags) byteOf(tag Tag) byte {
	switch tag {
	case TagArr:
		return t.Arr
	case TagDbl:
		return t.Dbl
	}
	return byte(tag)
}

// Decode is the package-level Decode under numbering t; Value.Tag holds
// the kind, whatever byte stood for it.
func (t Tags) Decode(b []byte) (Value, int, error) {
	return decode(b, 0, 0, t)
}

// AppendValue appends v serialized under numbering t.
func (t Tags) AppendValue(dst []byte, v Value) []byte {
	if v.Tag != TagArr {
		n := len(dst)
		dst = AppendValue(dst, v)
		dst[n] = t.byteOf(v.Tag)
		return dst
	}
	dst = append(dst, t.Arr)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v.Arr)))
	for _, e := range v.Arr {
		dst = t.AppendValue(dst, e)
	}
	return dst
}

// DecodeReply parses a reply body, which must hold exactly one value.
func DecodeReply(body []byte) (Value, error) {
	v, n, err := Decode(body)
	if err != nil {
		return Value{}, err
	}
	if n != len(body) {
		return Value{}, fmt.Errorf("%w at offset %d", ErrTrailing, n)
	}
	return v, nil
}

// decode parses the value starting at b[off:]; off is only used to report
// where a problem lies.
func decode(b []byte, off, depth int, t Tags) (Value, int, error) {
	truncated := func(at int) (Value, int, error) {
		return Value{}, 0, fmt.Errorf("%w at offset %d", ErrTruncated, off+at)
	}
	if len(b) < 1 {
		return truncated(0)
	}
	kind, ok := t.kind(b[0])
	if !ok {
		return Value{}, 0, fmt.Errorf("%w %d at offset %d", ErrBadTag, b[0], off)
	}
	v := Value{Tag: kind}
	switch v.Tag {
	case TagNil:
		return v, 1, nil
	case TagErr:
		if len(b) < 1+8 {
			return truncated(1)
		}
		v.Code = int32(binary.LittleEndian.Uint32(b[1:]))
		l := binary.LittleEndian.Uint32(b[5:])
		if uint64(l) > uint64(len(b)-9) {
			return truncated(9)
		}
		v.Str = b[9 : 9+int(l) : 9+int(l)]
		return v, 9 + int(l), nil
	case TagStr:
		if len(b) < 1+4 {
			return truncated(1)
		}
		l := binary.LittleEndian.Uint32(b[1:])
		if uint64(l) > uint64(len(b)-5) {
			return truncated(5)
		}
		v.Str = b[5 : 5+int(l) : 5+int(l)]
		return v, 5 + int(l), nil
	case TagInt, TagDbl:
		if len(b) < 1+8 {
			return truncated(1)
		}
		x := binary.LittleEndian.Uint64(b[1:])
		if v.Tag == TagInt {
			v.Int = int64(x)
		} else {
			v.Dbl = math.Float64frombits(x)
		}
		return v, 9, nil
	case TagArr:
		if depth >= MaxDepth {
			return Value{}, 0, fmt.Errorf("%w at offset %d", ErrTooDeep, off)
		}
		if len(b) < 1+4 {
			return truncated(1)
		}
		n := binary.LittleEndian.Uint32(b[1:])
		pos := 5
		// Every element takes at least one byte, so a count beyond the bytes
		// left is already known to be truncated; checking first also keeps a
		// forged count from driving a huge allocation.
		if uint64(n) > uint64(len(b)-pos) {
			return truncated(pos)
		}
		v.Arr = make([]Value, 0, n)
		for range n {
			e, used, err := decode(b[pos:], off+pos, depth+1, t)
			if err != nil {
				return Value{}, 0, err
			}
			v.Arr = append(v.Arr, e)
			pos += used
		}
		return v, pos, nil
	}
	return Value{}, 0, fmt.Errorf("%w %d at offset %d", ErrBadTag, b[0], off)
}
