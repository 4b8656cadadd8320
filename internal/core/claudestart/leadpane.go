package claudestart

import (
	"github.com/paneteam/paneteam/internal/core/leadpane"
)

// KeepLeadPane records the pane the lead starts in (pid is the lead's
// process: 'paneteam claude' becomes Claude with exec, keeping its pid),
// so that paneteam web may show and answer it (--answer-from-web). The
// note, when not "", is what the person should know: the terminal was
// not one the web view can answer in.
func KeepLeadPane(state string, getenv func(string) string, pid int) (note string, err error) {
	r, err := leadpane.Of(getenv, pid)
	if err != nil {
		return "", err
	}
	if err := leadpane.Write(state, r); err != nil {
		return "", err
	}
	return leadPaneNote(r.Terminal), nil
}

// leadPaneNote says what becomes of the lead's questions in a terminal.
func leadPaneNote(terminal string) string {
	switch terminal {
	case leadpane.TerminalTmux, "kitty", "wezterm", "iterm2", "zellij":
		// Zellij before 0.44 is refused by the page, which says why.
		return ""
	case "":
		return "--answer-from-web: this terminal is neither tmux nor one paneteam drives, so the lead's own questions can be answered only here"
	}
	return "--answer-from-web: the lead's pane in " + displayName(terminal) + " is recorded, but paneteam web cannot show or answer a lead there: " +
		"the lead's own questions wait here (start it inside tmux to answer them from the page)"
}
