package interop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// A capture is a text picture of a terminal with the lead and its
// teammates, drawn from what the terminal reports (each pane's size and
// text), for the README. Tests write one when PANETEAM_CAPTURE names a
// folder.

// capturePane is one pane to draw: its title, its share of the picture
// (main-vertical: the lead on the left, teammates stacked on the right)
// and its text.
type capturePane struct {
	title string
	lines []string
}

// writeCapture draws the lead beside its stacked teammates, the lead
// taking leadPct of the width, into PANETEAM_CAPTURE/name.txt.
func writeCapture(t *testing.T, name string, leadPct int, lead capturePane, mates ...capturePane) {
	dir := os.Getenv("PANETEAM_CAPTURE")
	if dir == "" {
		return
	}
	const width, height = 78, 14
	lw := width * leadPct / 100
	grid := make([][]rune, height)
	for i := range grid {
		grid[i] = []rune(strings.Repeat(" ", width))
	}
	box(grid, 0, 0, lw, height, lead)
	if n := len(mates); n > 0 {
		h := height / n
		for i, m := range mates {
			bh := h
			if i == n-1 {
				bh = height - h*i
			}
			box(grid, lw, h*i, width-lw, bh, m)
		}
	}
	var b strings.Builder
	for _, row := range grid {
		b.WriteString(strings.TrimRight(string(row), " ") + "\n")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// box draws p in the rectangle at x, y of w by h cells.
func box(grid [][]rune, x, y, w, h int, p capturePane) {
	put := func(r, c int, ch rune) {
		if r >= 0 && r < len(grid) && c >= 0 && c < len(grid[r]) {
			grid[r][c] = ch
		}
	}
	for c := x; c < x+w; c++ {
		put(y, c, '─')
		put(y+h-1, c, '─')
	}
	for r := y; r < y+h; r++ {
		put(r, x, '│')
		put(r, x+w-1, '│')
	}
	put(y, x, '┌')
	put(y, x+w-1, '┐')
	put(y+h-1, x, '└')
	put(y+h-1, x+w-1, '┘')
	title := " " + p.title + " "
	for i, ch := range []rune(title) {
		if i+2 < w-1 {
			put(y, x+2+i, ch)
		}
	}
	row := y + 1
	for _, l := range p.lines {
		if row >= y+h-1 {
			break
		}
		l = strings.TrimRight(l, " ")
		if strings.TrimSpace(l) == "" {
			continue
		}
		rs := []rune(l)
		if len(rs) > w-4 {
			rs = append(rs[:w-5], '…')
		}
		for i, ch := range rs {
			if ch == utf8.RuneError || ch < ' ' {
				ch = ' '
			}
			put(row, x+2+i, ch)
		}
		row++
	}
}
