package tmux

import "strings"

// ShellQuote quotes s for a POSIX shell. Words made only of characters no
// shell treats specially stay bare (readable in `ps` and in the pane's start
// command); anything else is single-quoted, each quote inside written as
// quote, backslash-quote, quote (close, escaped quote, reopen).
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, needsQuote) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func needsQuote(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("-_./:=@%+,", r)
}

// ShellJoin quotes every word of argv and joins them with spaces, so that
// `sh -c` sees exactly argv again.
func ShellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// ExecLine is the shell command line that replaces the shell with argv
// (exec semantics: the command gets the pane's pid, and its exit status is
// the pane's).
func ExecLine(argv []string) string { return "exec " + ShellJoin(argv) }

// FormatEscape doubles '#', so that a value tmux expands as a format (the
// -c start directory, a pane title set with select-pane -T: tmux(1)
// "FORMATS") comes out unchanged.
func FormatEscape(s string) string { return strings.ReplaceAll(s, "#", "##") }

// escapeArg protects an argument that ends in ';'. tmux splits its command
// line into several commands at every argument ending in ';'
// (cmd-parse.c, cmd_parse_from_arguments), unless the ';' is preceded by a
// backslash, which it then drops. A directory, title or environment value
// ending in ';' would otherwise cut the command in two.
func escapeArg(s string) string {
	if strings.HasSuffix(s, ";") {
		return s[:len(s)-1] + `\;`
	}
	return s
}

// escapeCommas makes s safe as a branch of a tmux conditional format
// (#{?cond,then,else}): commas outside any #{...} become "#,", so that a
// style like "fg=red,bg=blue" stays one branch (tmux(1) "FORMATS").
// Commas inside nested #{...} belong to that format and are kept.
func escapeCommas(s string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '#' && i+1 < len(s) && (s[i+1] == '{' || s[i+1] == ',' || s[i+1] == '#' || s[i+1] == '}'):
			if s[i+1] == '{' {
				depth++
			}
			b.WriteString(s[i : i+2])
			i++
			continue
		case c == '}' && depth > 0:
			depth--
		case c == ',' && depth == 0:
			b.WriteString("#,")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
