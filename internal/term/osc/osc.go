// Package osc writes the escape sequences that ask a terminal for a
// desktop notification, and wraps them so they pass through tmux. The
// title and body are other people's text (a teammate's name, a task's
// subject): they are made visible (package visible) and every byte that
// could end or split the sequence is dropped, so nothing a teammate typed
// reaches the terminal as a control.
package osc

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/term/visible"
)

// Terminal names the notification sequence a terminal understands.
type Terminal string

const (
	// None: the terminal has no notification sequence paneteam knows.
	None Terminal = ""
	// OSC9 is iTerm2's "ESC ] 9 ; text BEL", which WezTerm, Ghostty and
	// Windows Terminal also show (iTerm2 "Proprietary Escape Codes").
	OSC9 Terminal = "osc9"
	// OSC99 is kitty's desktop notification protocol, "ESC ] 99 ; meta ;
	// payload ESC \" (kitty "Desktop notifications").
	OSC99 Terminal = "osc99"
	// OSC777 is rxvt-unicode's "ESC ] 777 ; notify ; title ; body BEL",
	// which WezTerm, foot, Ghostty and Konsole show.
	OSC777 Terminal = "osc777"
)

// Terminals lists the names a person may choose.
var Terminals = []Terminal{OSC9, OSC99, OSC777}

// maxText bounds a title or body: a notification is a glance.
const maxText = 200

// Detect guesses the sequence from what a terminal says of itself:
// TERM_PROGRAM and TERM in its environment, or, under tmux, the client's
// #{client_termname} and #{client_termtype} (its answer to XTVERSION).
func Detect(termProgram, term, termType string) Terminal {
	all := strings.ToLower(termProgram + " " + term + " " + termType)
	switch {
	case strings.Contains(all, "kitty"):
		return OSC99
	case strings.Contains(all, "iterm"):
		return OSC9
	case strings.Contains(all, "wezterm"), strings.Contains(all, "foot"),
		strings.Contains(all, "ghostty"), strings.Contains(all, "konsole"):
		return OSC777
	}
	return None
}

// Clean makes text fit inside an OSC payload: shown as visible.Line shows
// it (no control character, so no BEL, ESC or ST), without ';' (the field
// separator of OSC 777 and of kitty's metadata; in OSC 9 a leading
// number and ';' is ConEmu's progress report), cut to maxText bytes on a
// character boundary.
func Clean(text string) string {
	s := strings.ReplaceAll(visible.Line(text), ";", ",")
	if len(s) > maxText {
		cut := maxText
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// Notification returns the sequence that asks term to show a notification
// with title and body (nil for None).
func Notification(term Terminal, title, body string) []byte {
	title, body = Clean(title), Clean(body)
	switch term {
	case OSC9:
		return []byte("\x1b]9;" + title + ": " + body + "\a")
	case OSC777:
		return []byte("\x1b]777;notify;" + title + ";" + body + "\a")
	case OSC99:
		// The title, then the body, one notification (i=) in two parts
		// (d=0: more to come); payloads in base64 (e=1) as kitty advises
		// for text that is not its own.
		enc := base64.StdEncoding.EncodeToString
		return []byte("\x1b]99;i=paneteam:d=0:e=1:p=title;" + enc([]byte(title)) + "\x1b\\" +
			"\x1b]99;i=paneteam:d=1:e=1:p=body;" + enc([]byte(body)) + "\x1b\\")
	}
	return nil
}

// Passthrough wraps seq for tmux's passthrough ("ESC P tmux ; seq ESC \",
// every ESC of seq doubled): tmux hands it to the outer terminal when the
// pane's allow-passthrough option is on, and drops it when off.
func Passthrough(seq []byte) []byte {
	if len(seq) == 0 {
		return nil
	}
	var b bytes.Buffer
	b.WriteString("\x1bPtmux;")
	b.Write(bytes.ReplaceAll(seq, []byte{0x1b}, []byte{0x1b, 0x1b}))
	b.WriteString("\x1b\\")
	return b.Bytes()
}
