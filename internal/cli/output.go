package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/paneteam/paneteam/internal/term/visible"
)

// printJSON writes v as indented JSON with a trailing newline, for scripts.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printSafeJSON prints v as JSON (indented, or one line) with the
// characters a terminal could act on escaped (visible.JSON).
func printSafeJSON(w io.Writer, v any, indent bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(visible.JSON(buf.Bytes()))
	return err
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

// warn tells the person on stderr about something a command passed over
// and went on without (an entry it cannot read, a file it skipped), with
// what a terminal could act on made visible.
func warn(env Env, problem error) {
	fmt.Fprintf(env.Stderr, "paneteam: warning: %s\n", visible.Line(problem.Error()))
}
