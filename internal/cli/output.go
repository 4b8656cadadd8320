package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/term/visible"
)

// printJSON writes v as indented JSON with a trailing newline, for
// scripts. Every command's --json goes through here (or jsonLine), so
// none lets a terminal act on a text from the team's folder: the
// characters visible.Line escapes and a JSON encoder leaves raw (DEL, C1
// controls, bidirectional overrides and other format characters, line
// separators) are written as \uXXXX escapes, which a parser reads back as
// the same text. Plain text prints exactly as before.
func printJSON(w io.Writer, v any) error {
	return writeJSON(w, v, true)
}

// jsonLine writes v as one line of JSON, escaped as printJSON does, for
// the commands that print one object per event.
func jsonLine(w io.Writer, v any) error {
	return writeJSON(w, v, false)
}

func writeJSON(w io.Writer, v any, indent bool) error {
	b, err := marshalSafe(v, indent)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// marshalSafe is v as JSON with a trailing newline, HTML characters kept,
// what a terminal could act on escaped (visible.JSON).
func marshalSafe(v any, indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return visible.JSON(buf.Bytes()), nil
}

// relTime is t relative to now, as people read it.
func relTime(t, now time.Time) string {
	if t.IsZero() {
		return "(no time)"
	}
	d := now.Sub(t)
	switch {
	case d < 10*time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02 15:04")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// warnf tells the person on stderr what format says, as a line from
// paneteam; what the arguments hold (names, paths, a program's words) is
// shown by the rule for someone else's text (visible.Block).
func warnf(env Env, format string, args ...any) {
	fmt.Fprintf(env.Stderr, "paneteam: %s\n", visible.Block(fmt.Sprintf(format, args...)))
}

// warn tells the person on stderr about something a command passed over
// and went on without (an entry it cannot read, a file it skipped), with
// what a terminal could act on made visible.
func warn(env Env, problem error) {
	fmt.Fprintf(env.Stderr, "paneteam: warning: %s\n", visible.Line(cliWords(problem)))
}

// showf is fmt.Fprintf for a line of a report whose words come from a
// team's folder or from what other programs said (names, paths, reasons,
// errors): every string and error among args is shown by the rule for
// someone else's text (visible.Line), so a report cannot forget one. The
// format itself is paneteam's. Give it no text already made visible: it
// would be quoted twice.
func showf(w io.Writer, format string, args ...any) {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = visible.Line(v)
		case error:
			args[i] = visible.Line(cliWords(v))
		}
	}
	fmt.Fprintf(w, format, args...)
}

// visibleLines is a writer that shows what is written to it line by line
// by the rule for someone else's text (visible.Line), for a recording of
// a terminal that someone else's program wrote: a line break stays one
// (a terminal's \r\n too), everything else a terminal would act on,
// colours included, is shown, not done. A line is written once complete;
// Flush writes a last line that has no line break. A line is never held
// past maxPartial bytes, and, with idle set (a log being followed), not
// past idle of quiet either: a prompt waiting for input is shown.
type visibleLines struct {
	w       io.Writer
	idle    time.Duration
	mu      sync.Mutex
	partial []byte
	timer   *time.Timer
}

// maxPartial bounds a line held back for its line break.
const maxPartial = 64 << 10

func (v *visibleLines) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.partial = append(v.partial, p...)
	for {
		i := bytes.IndexByte(v.partial, '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimSuffix(v.partial[:i], []byte("\r"))
		if _, err := io.WriteString(v.w, visible.Line(string(line))+"\n"); err != nil {
			return 0, err
		}
		v.partial = v.partial[i+1:]
	}
	if len(v.partial) >= maxPartial {
		if err := v.flush(); err != nil {
			return 0, err
		}
	}
	if v.idle > 0 && len(v.partial) > 0 {
		if v.timer == nil {
			v.timer = time.AfterFunc(v.idle, func() { v.Flush() })
		} else {
			v.timer.Reset(v.idle)
		}
	}
	return len(p), nil
}

// Flush writes what is left, a line without its line break.
func (v *visibleLines) Flush() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.flush()
}

func (v *visibleLines) flush() error {
	if len(v.partial) == 0 {
		return nil
	}
	_, err := io.WriteString(v.w, visible.Line(string(v.partial))+"\n")
	v.partial = nil
	return err
}
