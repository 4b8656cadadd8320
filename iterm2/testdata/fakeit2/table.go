package main

import (
	"strings"
	"unicode/utf8"

	"github.com/paneteam/paneteam/iterm2/it2test"
)

// table draws 'it2 session list' the way the Python it2 (rich) does. On a
// terminal the columns fit the ids; piped, rich assumes 80 columns and
// cuts long cells with "…", so ids come out as "B9FAD42C-1D2E-4…": the
// reason paneteam only reads --json.
func table(ss []*it2test.Session, tty bool) string {
	head := []string{"ID", "Name", "Title", "Window", "Tab"}
	rows := [][]string{}
	for _, s := range ss {
		rows = append(rows, []string{s.ID, s.Name, s.Title, s.WindowID, s.TabID})
	}
	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = utf8.RuneCountInString(h)
		for _, r := range rows {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	if !tty {
		// 80 columns: borders take 3 per column plus 1; the rest is
		// shared, ids first in line to be cut.
		limits := []int{16, 23, 14, 8, 3}
		for i := range widths {
			widths[i] = min(widths[i], limits[i])
		}
	}
	var b strings.Builder
	line := func(l, m, r, fill string) {
		b.WriteString(l)
		for i, w := range widths {
			if i > 0 {
				b.WriteString(m)
			}
			b.WriteString(strings.Repeat(fill, w+2))
		}
		b.WriteString(r + "\n")
	}
	cells := func(vals []string, bar string) {
		for i, v := range vals {
			b.WriteString(bar + " " + pad(cut(v, widths[i]), widths[i]) + " ")
		}
		b.WriteString(bar + "\n")
	}
	line("┏", "┳", "┓", "━")
	cells(head, "┃")
	line("┡", "╇", "┩", "━")
	for _, r := range rows {
		cells(r, "│")
	}
	line("└", "┴", "┘", "─")
	return b.String()
}

func cut(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	return string([]rune(s)[:w-1]) + "…"
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", w-utf8.RuneCountInString(s))
}
