package ptyhost

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The attach protocol. The host sends the terminal's output as a plain
// byte stream; the client sends frames: one type byte, a big-endian
// uint16 length, the payload.
const (
	frameInput  = 'i' // payload: bytes typed
	frameResize = 'r' // payload: rows, cols as big-endian uint16
	maxPayload  = 1<<16 - 1
)

func writeFrame(w io.Writer, typ byte, payload []byte) error {
	for first := true; first || len(payload) > 0; first = false {
		n := min(len(payload), maxPayload)
		hdr := [3]byte{typ}
		binary.BigEndian.PutUint16(hdr[1:], uint16(n))
		if _, err := w.Write(append(hdr[:], payload[:n]...)); err != nil {
			return err
		}
		payload = payload[n:]
	}
	return nil
}

func readFrame(r io.Reader, buf []byte) (byte, []byte, error) {
	var hdr [3]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := int(binary.BigEndian.Uint16(hdr[1:]))
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return 0, nil, fmt.Errorf("attach frame: %w", err)
	}
	return hdr[0], buf, nil
}

func resizePayload(rows, cols int) []byte {
	var b [4]byte
	binary.BigEndian.PutUint16(b[0:], uint16(rows))
	binary.BigEndian.PutUint16(b[2:], uint16(cols))
	return b[:]
}

func parseResize(p []byte) (rows, cols int, ok bool) {
	if len(p) != 4 {
		return 0, 0, false
	}
	return int(binary.BigEndian.Uint16(p[0:])), int(binary.BigEndian.Uint16(p[2:])), true
}
