package shim

import "strings"

// shellWords splits a POSIX shell command line into words the way sh
// would before expansion: blanks separate words; single quotes keep
// everything; double quotes keep everything but a backslash before
// $ ` " \ or a newline; a backslash outside quotes keeps the next
// character (and drops a newline). Operators such as "&&" come out as
// words of their own when written apart, as Claude Code writes them. It
// is only read (to learn which teammate a pane is for), never run: the
// line itself goes to /bin/sh untouched.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					cur.WriteByte(line[i])
				}
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				cur.WriteString(line[i+1:])
				i = len(line)
				break
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0 {
					i++
					if line[i] == '\n' {
						continue
					}
				}
				cur.WriteByte(line[i])
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// teammateOf finds, in the words of a teammate's command line, the value
// of its --agent-id flag ("name@team"), or "" when it has none.
func teammateOf(words []string) string {
	for i, w := range words {
		if v, ok := strings.CutPrefix(w, "--agent-id="); ok {
			return v
		}
		if w == "--agent-id" && i+1 < len(words) {
			return words[i+1]
		}
	}
	return ""
}
