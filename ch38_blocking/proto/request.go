package proto

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// KMaxArgs is the most strings one request may hold (the book's k_max_args).
const KMaxArgs = 1024

// Why ParseReq rejects a request.
var (
	ErrTooManyArgs = errors.New("too many strings")
	ErrTruncated   = errors.New("string runs past the end of the request")
	ErrTrailing    = errors.New("trailing bytes after the last string")
)

// EncodeReq lays out a command as a request body: the number of strings,
// then each string as a 4-byte length and its bytes, all little-endian.
func EncodeReq(cmd []string) []byte {
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(cmd)))
	for _, s := range cmd {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(s)))
		out = append(out, s...)
	}
	return out
}

// ParseReq splits a request body back into its strings. The body must be
// exactly nstr strings: too many, one running past the end, or bytes left
// over are all errors, and the server drops the connection.
func ParseReq(data []byte) ([]string, error) {
	args, err := SplitReq(data, nil)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out, nil
}

// SplitReq is ParseReq without copying: it appends to args[:0] one slice
// of data per string and returns the result. The slices alias data, so
// they are valid only while data is; a caller that keeps a string must
// copy it. Passing the previous result back as args reuses its array, so
// a server that parses every request this way allocates nothing per
// request.
func SplitReq(data []byte, args [][]byte) ([][]byte, error) {
	if len(data) < 4 {
		return nil, ErrTruncated
	}
	n := binary.LittleEndian.Uint32(data)
	if n > KMaxArgs {
		return nil, fmt.Errorf("%w: %d above %d", ErrTooManyArgs, n, KMaxArgs)
	}
	args = args[:0]
	pos := 4
	for ; n > 0; n-- {
		if pos+4 > len(data) {
			return nil, ErrTruncated
		}
		// Compared before it becomes an int, which on a 32-bit machine
		// would turn a length of 2^31 or more negative.
		sz := binary.LittleEndian.Uint32(data[pos:])
		if uint64(sz) > uint64(len(data)-pos-4) {
			return nil, ErrTruncated
		}
		end := pos + 4 + int(sz)
		// The full slice expression caps each string at its own end, so an
		// append to one cannot overwrite the next.
		args = append(args, data[pos+4:end:end])
		pos = end
	}
	if pos != len(data) {
		return nil, ErrTrailing
	}
	return args, nil
}

// Arg returns the string at index i of the request data, or false if the
// request has fewer strings or is cut short before it. It checks nothing
// past that string: it is for a quick look ahead at requests that SplitReq
// will parse (and may still refuse) when their turn comes.
func Arg(data []byte, i int) ([]byte, bool) {
	if len(data) < 4 || binary.LittleEndian.Uint32(data) <= uint32(i) {
		return nil, false
	}
	pos := 4
	for {
		if pos+4 > len(data) {
			return nil, false
		}
		// Compared before it becomes an int, which on a 32-bit machine
		// would turn a length of 2^31 or more negative.
		sz := binary.LittleEndian.Uint32(data[pos:])
		if uint64(sz) > uint64(len(data)-pos-4) {
			return nil, false
		}
		end := pos + 4 + int(sz)
		if i == 0 {
			return data[pos+4 : end], true
		}
		pos = end
		i--
	}
}
