package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

// read is 'it2 session read [-s ID] [-n LINES]' (it2 0.2.x: "Display
// screen contents"): the session's screen as text, from iTerm2's
// async_get_screen_contents, without colours or escape sequences; with
// -n only its last LINES lines. A hosted session's screen is what its
// program printed, escape sequences taken out (the fake keeps output,
// not a rendered screen); another session's is empty.
func (f *fake) read(o opts) {
	s := f.target(o.session)
	if len(o.pos) > 0 {
		f.fail(2, fmt.Sprintf("Error: Got unexpected extra argument (%s)", o.pos[0]))
	}
	text := ""
	if s.Hosted {
		b, _ := os.ReadFile(nativetest.ScreenPath(it2test.PanesPath(f.statePath), s.Pane))
		text = strings.TrimRight(strings.ReplaceAll(ansi.Strip(string(b)), "\r\n", "\n"), "\n")
	}
	if o.lines > 0 {
		ls := strings.Split(text, "\n")
		if o.lines < len(ls) {
			ls = ls[len(ls)-o.lines:]
		}
		text = strings.Join(ls, "\n")
	}
	fmt.Println(text)
}

// hostedTTY is the terminal device of hosted session s's program, which
// 'session list' reports as the session's tty, as iTerm2 does ("" when
// it is not known).
func (f *fake) hostedTTY(s *it2test.Session) string {
	st, err := nativetest.Load(it2test.PanesPath(f.statePath))
	if err != nil {
		return ""
	}
	if p, ok := st.Pane(s.Pane); ok {
		return p.TTY
	}
	return ""
}
