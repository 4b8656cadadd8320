package dashboard

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// styles paint the screen. Without colour every style is the identity:
// the marks that matter ("!", "[NEEDS YOU]", the ">" cursor) are text, so
// the screen reads the same in NO_COLOR and in a capture.
type styles struct {
	title, heading, focus, cursor, needs, gone, dim, err lipgloss.Style
	color                                                bool
}

func newStyles(color bool) styles {
	// A renderer of our own, told the profile: lipgloss's default one
	// would ask the terminal, and NO_COLOR must mean no escapes at all.
	profile := termenv.Ascii
	if color {
		profile = termenv.ANSI
	}
	r := lipgloss.NewRenderer(io.Discard, termenv.WithProfile(profile))
	r.SetColorProfile(profile)
	r.SetHasDarkBackground(true)
	s := r.NewStyle()
	return styles{
		color:   color,
		title:   s.Bold(true),
		heading: s.Bold(true),
		focus:   s.Bold(true).Foreground(lipgloss.Color("6")),
		cursor:  s.Reverse(true),
		needs:   s.Bold(true).Foreground(lipgloss.Color("1")),
		gone:    s.Foreground(lipgloss.Color("8")),
		dim:     s.Foreground(lipgloss.Color("8")),
		err:     s.Foreground(lipgloss.Color("1")),
	}
}

func (s styles) paint(st lipgloss.Style, text string) string {
	if !s.color || text == "" {
		return text
	}
	return st.Render(text)
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
