package web

import (
	"fmt"
	"io"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// qrStyle paints the code black on bright white whatever the terminal's
// own colours: a phone's camera reads dark modules on a light ground, and
// on a dark terminal the unpainted code would come out inverted.
const (
	qrStyle = "\x1b[30;107m"
	qrReset = "\x1b[0m"
)

// writeQR draws u as a QR code with Unicode half blocks, two rows of
// modules to a line of text, so that a phone can open the URL from the
// terminal. The quiet zone the encoder adds (four modules) is kept: a
// camera needs it to find the code.
func writeQR(w io.Writer, u string) error {
	q, err := qrcode.New(u, qrcode.Low) // Low: the smallest code, read from a clean screen
	if err != nil {
		return fmt.Errorf("make the URL's QR code: %w", err)
	}
	bits := q.Bitmap()
	var b strings.Builder
	for y := 0; y < len(bits); y += 2 {
		b.WriteString(qrStyle)
		for x := range bits[y] {
			top := bits[y][x]
			bottom := y+1 < len(bits) && bits[y+1][x]
			b.WriteString(halfBlock(top, bottom))
		}
		b.WriteString(qrReset)
		b.WriteByte('\n')
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// halfBlock is the character whose upper and lower halves are the two
// modules (true is dark, the foreground).
func halfBlock(top, bottom bool) string {
	switch {
	case top && bottom:
		return "█"
	case top:
		return "▀"
	case bottom:
		return "▄"
	}
	return " "
}
