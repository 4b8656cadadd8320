package post

import (
	"errors"
	"strings"

	"github.com/paneteam/paneteam/internal/encoding/jsjson"
	"github.com/paneteam/paneteam/mailbox"
)

// What a plain message must not be (CheckPlain).
var (
	ErrBlank = errors.New("the message is blank")
	ErrFrame = errors.New("the message is a protocol frame")
	// ErrTooDeep is a JSON object nested too deeply to be judged: JSON.parse
	// reads it, so it may be a frame to Claude Code.
	ErrTooDeep = errors.New("the message is a JSON object nested too deeply to tell whether it is a protocol frame")
)

// CheckPlain refuses text a sender meant as words but that is not: blank
// (ErrBlank), or a JSON object with a string "type" (ErrFrame), which a
// receiver acts on as a request or an answer when it knows the type
// (docs/PROTOCOL.md §8), and a later release may. A front end that means
// to send raw frames does not call it.
//
// The text is judged by both readers an inbox has: paneteam's own
// (mailbox.Parse, Go's encoding/json) and Claude Code's (JSON.parse, as
// jsjson reads). They differ: a repeated "type" key is the last one to
// JavaScript, and Go fails on `{"type":1,"type":"shutdown_request"}`
// where JavaScript reads a frame; Go matches "Type" to type, JavaScript
// does not. Text either reads as a frame is refused. JSON.parse reads a
// value of any depth, jsjson (like encoding/json) stops at
// jsjson.MaxNesting: an object deeper than that cannot be judged and is
// refused (ErrTooDeep); no words need that.
func CheckPlain(text string) error {
	if strings.TrimSpace(text) == "" {
		return ErrBlank
	}
	if _, ok := mailbox.Parse(text); ok {
		return ErrFrame
	}
	return checkJS(text)
}

// checkJS judges text as Claude Code does: JSON.parse(text), then a
// string "type" on the object it made.
func checkJS(text string) error {
	// JSON.parse skips only JSON's own white space before the value.
	if !strings.HasPrefix(strings.TrimLeft(text, " \t\n\r"), "{") {
		return nil
	}
	v, err := jsjson.Parse([]byte(text))
	if errors.Is(err, jsjson.ErrTooDeep) {
		return ErrTooDeep
	}
	if err != nil {
		return nil
	}
	o, ok := v.(*jsjson.Object)
	if !ok {
		return nil
	}
	if t, ok := o.Get("type"); ok {
		if _, isString := t.(string); isString {
			return ErrFrame
		}
	}
	return nil
}
