package ask

import (
	"strings"
	"unicode/utf8"
)

// Outcome is what a keystroke did to the line being edited.
type Outcome int

// Outcomes of Feed.
const (
	Editing  Outcome = iota // keep reading
	Done                    // Enter: the line is complete
	Canceled                // Ctrl-C, Esc, or Ctrl-D on an empty line
)

// Editor turns the bytes a terminal in raw mode sends into one line of
// text, byte for byte as typed: nothing in it is interpreted (no shell, no
// tmux format, no escape processing), so quotes, $, backticks, backslashes,
// ';', '#', '%' and any UTF-8 arrive unchanged. Its length is not limited,
// unlike a terminal's canonical mode (Linux keeps at most 4095 bytes of a
// line, n_tty's N_TTY_BUF_SIZE, and drops the rest).
//
// Keys: Enter ends the line; Backspace deletes a character, Ctrl-U the
// line, Ctrl-W a word; Ctrl-C, Esc, or Ctrl-D on an empty line cancel.
// Other control keys and escape sequences (arrows, function keys) are
// ignored. A bracketed paste (ESC [ 200 ~ ... ESC [ 201 ~) is taken whole:
// its newlines become part of the text instead of ending it.
type Editor struct {
	buf   []byte
	state escState
	seq   []byte // the CSI parameters read so far
	paste bool
	cr    bool // in a paste, the last byte was CR (CRLF is one newline)
}

type escState int

const (
	plain escState = iota
	afterEsc
	inCSI
	inSS3
)

// Control keys, as a terminal in raw mode sends them.
const (
	keyCtrlC     = 0x03
	keyCtrlD     = 0x04
	keyBackspace = 0x08
	keyTab       = '\t'
	keyLF        = '\n'
	keyCR        = '\r'
	keyCtrlU     = 0x15
	keyCtrlW     = 0x17
	keyEsc       = 0x1b
	keyDel       = 0x7f
)

// Bracketed paste markers (xterm; tmux passes them on when the program
// asked for them with ESC [ ? 2004 h).
const (
	pasteStart = "200~"
	pasteEnd   = "201~"
)

// Text is the line so far.
func (e *Editor) Text() string { return string(e.buf) }

// Reset empties the editor for the next line.
func (e *Editor) Reset() { *e = Editor{} }

// PendingEsc reports whether the last byte fed was a lone ESC: the caller
// waits briefly for more, and calls EscTimeout when nothing came (the Esc
// key itself, which cancels).
func (e *Editor) PendingEsc() bool { return e.state == afterEsc && !e.paste }

// EscTimeout resolves a pending lone ESC as the Esc key.
func (e *Editor) EscTimeout() Outcome {
	if e.PendingEsc() {
		e.state = plain
		return Canceled
	}
	return Editing
}

// Feed takes bytes as read from the terminal. It stops at the first byte
// that ends or cancels the line and returns how many bytes it used; the
// rest belong to whatever reads next.
func (e *Editor) Feed(p []byte) (Outcome, int) {
	for i, b := range p {
		if o := e.key(b); o != Editing {
			return o, i + 1
		}
	}
	return Editing, len(p)
}

func (e *Editor) key(b byte) Outcome {
	switch e.state {
	case afterEsc:
		switch b {
		case '[':
			e.state, e.seq = inCSI, e.seq[:0]
		case 'O':
			e.state = inSS3
		default:
			e.state = plain // Alt+key: ignored
		}
		return Editing
	case inCSI:
		if b >= 0x40 && b <= 0x7e { // final byte
			e.state = plain
			e.csi(string(append(e.seq, b)))
			return Editing
		}
		e.seq = append(e.seq, b)
		return Editing
	case inSS3:
		e.state = plain
		return Editing
	}
	if b == keyEsc {
		e.state = afterEsc
		return Editing
	}
	if e.paste {
		e.pasted(b)
		return Editing
	}
	switch b {
	case keyCR, keyLF:
		return Done
	case keyCtrlC:
		return Canceled
	case keyCtrlD:
		if len(e.buf) == 0 {
			return Canceled
		}
	case keyBackspace, keyDel:
		e.eraseRune()
	case keyCtrlU:
		e.buf = e.buf[:0]
	case keyCtrlW:
		e.eraseWord()
	case keyTab:
		e.buf = append(e.buf, b)
	default:
		if b >= 0x20 {
			e.buf = append(e.buf, b)
		}
	}
	return Editing
}

func (e *Editor) csi(seq string) {
	switch seq {
	case pasteStart:
		e.paste = true
	case pasteEnd:
		e.paste, e.cr = false, false
	}
}

// pasted adds a byte of a bracketed paste: line ends become '\n' (CR,
// LF and CRLF alike), tabs stay, other control bytes are dropped.
func (e *Editor) pasted(b byte) {
	wasCR := e.cr
	e.cr = b == keyCR
	switch {
	case b == keyCR:
		e.buf = append(e.buf, '\n')
	case b == keyLF:
		if !wasCR {
			e.buf = append(e.buf, '\n')
		}
	case b == keyTab || b >= 0x20:
		e.buf = append(e.buf, b)
	}
}

func (e *Editor) eraseRune() {
	if len(e.buf) == 0 {
		return
	}
	_, n := utf8.DecodeLastRune(e.buf)
	e.buf = e.buf[:len(e.buf)-n]
}

func (e *Editor) eraseWord() {
	s := strings.TrimRight(string(e.buf), " \t")
	if i := strings.LastIndexAny(s, " \t"); i >= 0 {
		s = s[:i+1]
	} else {
		s = ""
	}
	e.buf = append(e.buf[:0], s...)
}
