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
	if len(data) < 4 {
		return nil, ErrTruncated
	}
	n := binary.LittleEndian.Uint32(data)
	if n > KMaxArgs {
		return nil, fmt.Errorf("%w: %d above %d", ErrTooManyArgs, n, KMaxArgs)
	}
	out := make([]string, 0, n)
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
		out = append(out, string(data[pos+4:end]))
		pos = end
	}
	if pos != len(data) {
		return nil, ErrTrailing
	}
	return out, nil
}
