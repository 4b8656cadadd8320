package land

import (
	"strconv"
	"strings"
)

// LineKind is what one line of a unified diff is.
type LineKind int

const (
	// Header is a line outside a hunk: diff --git, index, ---, +++, a
	// rename, a mode, "Binary files ... differ".
	Header LineKind = iota
	// Hunk is an @@ line.
	Hunk
	// Context is an unchanged line inside a hunk.
	Context
	// Added is a line the change adds.
	Added
	// Removed is a line the change removes.
	Removed
	// NoNewline is git's "\ No newline at end of file".
	NoNewline
)

// DiffLine is one line of a unified diff with where it stands in the
// changed file: File and Line are the new side's path and line number
// (from 1), for an added or unchanged line; a removed, header or hunk
// line has Line 0, as it is on no line of the file as it is now. Old is
// the old side's line number of an unchanged or removed line.
type DiffLine struct {
	Text string
	Kind LineKind
	File string
	Line int
	Old  int
}

// DiffLines reads a unified diff as git diff writes it with a/ and b/
// prefixes (DiffOptions.Parse), working each line's new-side position
// out from the hunk headers.
func DiffLines(patch string) []DiffLine {
	var out []DiffLine
	var file string
	// next is the next new-side line; oldLeft and newLeft the lines each
	// side of the hunk has still to show (an unchanged line is on both).
	next, old, oldLeft, newLeft := 0, 0, 0, 0
	if patch == "" {
		return nil
	}
	for _, text := range strings.Split(strings.TrimSuffix(patch, "\n"), "\n") {
		d := DiffLine{Text: text}
		inHunk := oldLeft > 0 || newLeft > 0
		switch {
		case inHunk && oldLeft > 0 && newLeft > 0 && (text == "" || text[0] == ' '):
			// An empty line is an unchanged blank one under
			// diff.suppressBlankEmpty.
			d.Kind, d.File, d.Line, d.Old = Context, file, next, old
			next, old, oldLeft, newLeft = next+1, old+1, oldLeft-1, newLeft-1
		case inHunk && newLeft > 0 && text != "" && text[0] == '+':
			d.Kind, d.File, d.Line = Added, file, next
			next, newLeft = next+1, newLeft-1
		case inHunk && oldLeft > 0 && text != "" && text[0] == '-':
			d.Kind, d.File, d.Old = Removed, file, old
			old, oldLeft = old+1, oldLeft-1
		case strings.HasPrefix(text, `\`):
			d.Kind = NoNewline
		case strings.HasPrefix(text, "@@ "):
			d.Kind = Hunk
			old, next, oldLeft, newLeft, _ = hunkHeader(text)
		default:
			oldLeft, newLeft = 0, 0
			if strings.HasPrefix(text, "diff --git ") {
				file = ""
			} else if p, ok := strings.CutPrefix(text, "+++ "); ok {
				file = diffPath(p, "b/")
			}
		}
		out = append(out, d)
	}
	return out
}

// hunkHeader reads "@@ -a[,b] +c[,d] @@": each side's first line and
// length (a missing length is 1).
func hunkHeader(h string) (oldStart, newStart, oldLen, newLen int, ok bool) {
	f := strings.Fields(h)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, 0, false
	}
	oldStart, oldLen, ok1 := rangeOf(f[1][1:])
	newStart, newLen, ok2 := rangeOf(f[2][1:])
	if !ok1 || !ok2 {
		return 0, 0, 0, 0, false
	}
	return oldStart, newStart, oldLen, newLen, true
}

// Moved is where line of file is after the change lines shows (the old
// side's line to the new side's), false when the change removed or
// replaced it. A committed line of a teammate's file is found so in the
// file as its worktree has it now, through its uncommitted diff.
func Moved(lines []DiffLine, file string, line int) (int, bool) {
	shift := 0 // new side minus old side, past the lines seen
	for _, d := range lines {
		if d.File != file {
			continue
		}
		switch d.Kind {
		case Context:
			if d.Old == line {
				return d.Line, true
			}
			if d.Old > line {
				return line + shift, true
			}
			shift = d.Line - d.Old
		case Removed:
			if d.Old == line {
				return 0, false
			}
			if d.Old > line {
				return line + shift, true
			}
			shift--
		case Added:
			shift++
		}
	}
	return line + shift, true
}

func rangeOf(s string) (start, n int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	n = 1
	if has {
		if n, err = strconv.Atoi(b); err != nil {
			return 0, 0, false
		}
	}
	return start, n, true
}

// diffPath is the path of a ---/+++ line: prefix cut, git's C-style
// quoting undone, "" for /dev/null (a file deleted). git ends an
// unquoted name that holds a space with a tab (diff.c, for GNU patch),
// which is not part of the name: a name holding a tab is quoted.
func diffPath(p, prefix string) string {
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			p = u
		}
	} else {
		p = strings.TrimSuffix(p, "\t")
	}
	if p == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(p, prefix)
}
