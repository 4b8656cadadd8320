package dashboard

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// sgr is a Select Graphic Rendition parameter list (ECMA-48): "1" bold,
// "7" reverse, "31" red, "36" cyan, "90" bright black.
type sgr string

// styles paint the screen. Without colour nothing is painted: the marks
// that matter ("!", "[NEEDS YOU]", the ">" cursor) are text, so the screen
// reads the same in NO_COLOR and in a capture.
//
// Eleven fixed SGR sequences are all the dashboard needs, so they are
// written here rather than through a styling library. Lip Gloss 1 was
// refused because termenv and terminfo's os/user import made every cgo
// build of paneteam link libc dynamically, for every keybinding and
// status-line refresh; that reason has gone (the dashboard is its own
// program, and Bubble Tea v2 links terminfo itself), but Lip Gloss v2
// would still be a module and its width tables for eleven strings, and
// the layout here (cut, pad, wrap to exact columns, wide characters
// counted as tmux counts them) is what it would not do for us.
type styles struct {
	title, heading, focus, cursor, needs, gone, dim, err sgr
	// A diff's added, removed and hunk lines (the review view).
	added, removed, hunk sgr
	color                bool
}

func newStyles(color bool) styles {
	return styles{
		color:   color,
		title:   "1",
		heading: "1",
		focus:   "1;36",
		cursor:  "7",
		needs:   "1;31",
		gone:    "90",
		dim:     "90",
		err:     "31",
		added:   "32",
		removed: "31",
		hunk:    "36",
	}
}

func (s styles) paint(st sgr, text string) string {
	if !s.color || text == "" || st == "" {
		return text
	}
	return "\x1b[" + string(st) + "m" + text + "\x1b[0m"
}

// ellipsis marks text cut to fit a row; the detail view shows it whole.
const ellipsis = "…"

// width is the number of terminal columns s takes (wcwidth, as tmux
// counts them).
func width(s string) int { return ansi.StringWidthWc(s) }

// cut shortens s to at most w columns, ending with the ellipsis when
// something was cut.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if width(s) <= w {
		return s
	}
	return ansi.TruncateWc(s, w, ellipsis)
}

// pad cuts or pads s to exactly w columns.
func pad(s string, w int) string {
	s = cut(s, w)
	return s + strings.Repeat(" ", max(0, w-width(s)))
}

// wrap breaks plain text into lines of at most w columns, keeping its
// own line breaks.
func wrap(text string, w int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			out = append(out, "")
			continue
		}
		out = append(out, strings.Split(ansi.HardwrapWc(line, w, true), "\n")...)
	}
	return out
}
