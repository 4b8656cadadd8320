package shim

import (
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"slices"
	"strings"
)

// terminalPrefixes start the names of the variables a terminal sets in
// the programs it runs, which say which terminal and which of its panes
// a program runs in: what a driver reads to reach the terminal
// (KITTY_LISTEN_ON, WEZTERM_UNIX_SOCKET, ZELLIJ_SESSION_NAME,
// ITERM_SESSION_ID), and what is true of one pane only (KITTY_WINDOW_ID,
// WEZTERM_PANE, ZELLIJ_PANE_ID).
var terminalPrefixes = []string{"KITTY_", "WEZTERM_", "ZELLIJ", "ITERM_", "TERM_PROGRAM", "TERM_SESSION_ID", "LC_TERMINAL"}

// IsTerminalVar reports whether k is one of a terminal's own variables.
func IsTerminalVar(k string) bool {
	for _, p := range terminalPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// TerminalVars are environ's terminal variables (IsTerminalVar).
func TerminalVars(environ []string) map[string]string {
	out := map[string]string{}
	for k, v := range envlist.Map(environ) {
		if IsTerminalVar(k) {
			out[k] = v
		}
	}
	return out
}

// iterm2Vars are the variables by which Claude Code tells it runs in
// iTerm2, whatever TERM_PROGRAM says.
var iterm2Vars = []string{"ITERM_SESSION_ID", "ITERM_PROFILE", "LC_TERMINAL", "LC_TERMINAL_VERSION", "TERM_SESSION_ID"}

// ITerm2Vars lists the variables, of an environment getenv reads, by
// which Claude Code would take itself to run in iTerm2 and drive it2
// itself instead of calling tmux: a Claude that paneteam gives a tmux
// must not see them. TERM_PROGRAM is one only when it names iTerm2.
func ITerm2Vars(getenv func(string) string) []string {
	out := slices.Clone(iterm2Vars)
	if getenv("TERM_PROGRAM") == "iTerm.app" {
		out = append(out, "TERM_PROGRAM", "TERM_PROGRAM_VERSION")
	}
	return out
}
