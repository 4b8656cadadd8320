package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A teammate writes every text of a request: its command, file paths, its
// plan, even its id. Shown raw, an escape sequence in it could repaint the
// screen so that the person approving sees another command than the one
// that runs. Visible makes such characters into visible escapes instead,
// and nothing is ever cut short: what is hidden cannot be judged.

// Visible renders s for a terminal on one line: control characters as
// escapes (\t, \r, \n, \x1b, \x7f, \u009b), Unicode format and separator
// characters (bidirectional overrides, zero-width characters) as \uXXXX,
// and bytes that are not UTF-8 as \xNN. Everything else is left as it is.
func Visible(s string) string { return visible(s, false) }

// VisibleBlock is Visible for text shown on several lines, such as a
// plan: newlines stay line breaks; everything else is escaped as Visible
// does, a carriage return included.
func VisibleBlock(s string) string { return visible(s, true) }

func visible(s string, keepNewlines bool) string {
	if safe(s, keepNewlines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hidden reports a character a terminal may act on or not draw: C1
// controls (U+009B is CSI for some terminals), format characters
// (bidirectional overrides, zero-width joiners) and line separators.
func hidden(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

func safe(s string, keepNewlines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false // decide per rune
		}
		if (c < 0x20 && !(keepNewlines && c == '\n')) || c == 0x7f {
			return false
		}
	}
	return true
}

// SafeJSON makes encoded JSON safe to print on a terminal without changing
// what it decodes to: characters that Visible escapes and a JSON encoder
// leaves raw (DEL, C1 controls, format characters) become \uXXXX escapes.
// They can only occur inside strings, where such an escape means the same.
func SafeJSON(b []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r != utf8.RuneError && hidden(r)) {
			if r > 0xffff {
				a, z := utf16.EncodeRune(r)
				fmt.Fprintf(&out, `\u%04x\u%04x`, a, z)
			} else {
				fmt.Fprintf(&out, `\u%04x`, r)
			}
		} else {
			out.Write(b[i : i+n])
		}
		i += n
	}
	return out.Bytes()
}

// editTools name a file in their input; a person judges them by the path.
var editTools = map[string][]string{
	"Edit":         {"file_path"},
	"MultiEdit":    {"file_path"},
	"Write":        {"file_path"},
	"Read":         {"file_path"},
	"NotebookEdit": {"notebook_path"},
}

// Subject is one line saying what r asks, made Visible and never cut: a
// Bash call's whole command, an edit's path, another tool's whole input as
// compact JSON, a sandbox host, or a plan's title and size.
func Subject(r Request) string {
	switch r.Kind {
	case KindPermission:
		return Visible(r.ToolName) + ": " + inputSubject(r)
	case KindSandbox:
		return "network host " + Visible(r.Host)
	case KindPlan:
		return fmt.Sprintf("plan \"%s\" (%d lines, %d bytes)", PlanTitle(r.PlanContent),
			strings.Count(strings.TrimRight(r.PlanContent, "\n"), "\n")+1, len(r.PlanContent))
	}
	return string(r.Kind)
}

func inputSubject(r Request) string {
	var in map[string]json.RawMessage
	if json.Unmarshal(r.Input, &in) == nil {
		fields := editTools[r.ToolName]
		if r.ToolName == "Bash" {
			fields = []string{"command"}
		}
		for _, f := range fields {
			var s string
			if json.Unmarshal(in[f], &s) == nil && s != "" {
				return Visible(s)
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, r.Input) != nil {
		return Visible(string(r.Input))
	}
	return Visible(buf.String())
}

// PlanTitle is a plan's first heading, else its first line that is not
// blank, made Visible.
func PlanTitle(plan string) string {
	first := ""
	for _, line := range strings.Split(plan, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "#") {
			return Visible(strings.TrimSpace(strings.TrimLeft(t, "#")))
		}
		if first == "" {
			first = t
		}
	}
	return Visible(first)
}
