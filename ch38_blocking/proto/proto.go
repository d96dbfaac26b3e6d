// Package proto is the wire format shared by this chapter's server and
// client: every message is a 4-byte little-endian length, then that many
// bytes. Length-prefixing is what lets a reader split a byte stream back
// into messages.
package proto

import (
	"encoding/binary"
	"errors"
	"io"

	"example.com/byor/ch38_blocking/sock"
)

// KMaxMsg is the largest message body either side accepts (the book's
// k_max_msg). Bounding it bounds every buffer.
const KMaxMsg = 4096

// ErrTooLong reports a length header above KMaxMsg.
var ErrTooLong = errors.New("too long")

// WriteMsg sends body as one length-prefixed message.
func WriteMsg(fd int, body []byte) error {
	// exercise: ch04-framing
	if len(body) > KMaxMsg {
		return ErrTooLong
	}
	wbuf := make([]byte, 4+len(body))
	binary.LittleEndian.PutUint32(wbuf, uint32(len(body)))
	copy(wbuf[4:], body)
	return sock.WriteAll(fd, wbuf)
	// end exercise: ch04-framing
}

// ReadMsg reads one length-prefixed message into rbuf, which must hold
// KMaxMsg bytes, and returns the body. It returns io.EOF if the peer closed
// cleanly between messages and io.ErrUnexpectedEOF if it closed inside one.
func ReadMsg(fd int, rbuf []byte) ([]byte, error) {
	// exercise: ch04-framing
	var header [4]byte
	if err := sock.ReadFull(fd, header[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(header[:])
	if n > KMaxMsg {
		return nil, ErrTooLong
	}
	body := rbuf[:n]
	if err := sock.ReadFull(fd, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
	// end exercise: ch04-framing
}
