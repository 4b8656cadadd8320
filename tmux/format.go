package tmux

import (
	"context"
	"fmt"
	"strings"
)

// fieldSep separates fields in -F output. It is printable ASCII on
// purpose: tmux 3.3a rewrites every control character (a tab, \x1f) and
// every non-ASCII byte to "_" in what it prints for a client it believes
// cannot take UTF-8, and it believes that whenever none of LC_ALL,
// LC_CTYPE, LANG names UTF-8, as under cron's `env -i` (tmux.c,
// checkshell/CLIENT_UTF8; cmdq_print sanitises for such clients). A "|"
// survives any locale. Fields that may hold a "|" of their own (titles,
// session names, option values) are encoded by tmux itself (encodeField),
// so the separator never occurs inside a field.
const fieldSep = "|"

// encodeField wraps the format variable v so that tmux prints it with
// "~" as "~t", "|" as "~p" and a newline as "~n" (the s/// format
// modifier, tmux(1) FORMATS, applied innermost first): the value can then
// hold neither a separator nor a line break, and decoder restores it.
// The escape is "~", not "%": display-message passes its whole format
// through strftime(3) first, which would rewrite "%7C" in the modifier.
func encodeField(v string) string {
	return "#{s/\n/~n/:#{s/[|]/~p/:#{s/~/~t/:" + v + "}}}"
}

// decoder undoes encodeField: every "~" it finds starts a two-byte escape.
var decoder = strings.NewReplacer("~t", "~", "~p", "|", "~n", "\n")

// plainVar says whether v is a format variable whose values are ids or
// numbers, which hold no "|", "~" or newline: printed as they are, they
// spare tmux a regular expression each (list-panes is polled while a
// pane starts).
// A switch, not a map, so that no paneteam start builds it.
func plainVar(v string) bool {
	switch v {
	case "pane_id", "window_id", "pane_index", "pane_left", "pane_top", "pane_width", "pane_height",
		"pane_active", "pane_dead", "pane_dead_status", "pane_pid", "pid":
		return true
	}
	return false
}

// Format is the -F format that prints the format variables vars (such as
// "pane_id" or "@paneteam-agent") on one line, for ParseLines.
func Format(vars ...string) string {
	enc := make([]string, len(vars))
	for i, v := range vars {
		if plainVar(v) {
			enc[i] = "#{" + v + "}"
		} else {
			enc[i] = encodeField(v)
		}
	}
	return strings.Join(enc, fieldSep)
}

// ParseLines splits the output of a command run with Format(n vars) into
// one record of n decoded fields per non-empty line. A line with another
// field count is an error: it would mean tmux printed something else.
func ParseLines(out string, n int) ([][]string, error) {
	var recs [][]string
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, fieldSep)
		if len(f) != n {
			return nil, fmt.Errorf("tmux printed %q: %d fields, want %d", line, len(f), n)
		}
		for i := range f {
			f[i] = decoder.Replace(f[i])
		}
		recs = append(recs, f)
	}
	return recs, nil
}

// Display returns the values of the format variables vars for target (a
// pane, window or session), through display-message.
func (s Server) Display(ctx context.Context, target string, vars ...string) ([]string, error) {
	out, err := s.Run(ctx, "display-message", "-p", "-t", target, Format(vars...))
	if err != nil {
		return nil, err
	}
	recs, err := ParseLines(out, len(vars))
	if err != nil {
		return nil, err
	}
	if len(recs) != 1 {
		return nil, fmt.Errorf("tmux display-message -t %s printed %d lines, want 1", target, len(recs))
	}
	return recs[0], nil
}
