package iterm2

import (
	"encoding/base64"
	"fmt"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"maps"
	"slices"
	"strings"
)

// iTerm2 has no "start this command in the new pane" through it2: the
// command is typed into the pane's shell with 'it2 session run', which
// sends the text and a carriage return. So the teammate's argv becomes one
// shell line, quoted so the user's login shell (sh, bash, zsh, fish 3+)
// runs it exactly:
//
//	cd '<cwd>' && printf '<set user var>' && exec env 'K=V' ... '<argv0>' '<argv1>' ...
//
// exec replaces the shell, so the pane closes when the teammate exits.

// AgentVar is the iTerm2 user variable naming the agent in a pane; the
// Dynamic Profile's badge shows \(user.paneteam_agent).
const AgentVar = "paneteam_agent"

// NeedsVar is the iTerm2 user variable 'paneteam status --format iterm2'
// sets in the lead's session: "!N need you" while teammates wait for the
// lead's answer, empty otherwise. A badge or status bar shows
// \(user.paneteam_needs).
const NeedsVar = "paneteam_needs"

// SetUserVar is iTerm2's escape sequence (OSC 1337) that sets a user
// variable of the session it is printed in. The value travels as base64,
// so nothing in it is special to the terminal.
func SetUserVar(name, value string) string {
	return "\x1b]1337;SetUserVar=" + name + "=" + base64.StdEncoding.EncodeToString([]byte(value)) + "\a"
}

// CommandLine renders the line typed into a new pane. userVars are set
// with iTerm2's SetUserVar escape sequence (OSC 1337) before exec, so the
// badge and triggers can use them; names must be [A-Za-z0-9_].
func CommandLine(dir string, env, argv []string, userVars map[string]string) (string, error) {
	if len(argv) == 0 {
		return "", fmt.Errorf("no command to run in the iTerm2 pane")
	}
	if strings.Contains(argv[0], "=") {
		return "", fmt.Errorf("command %q contains '=': env would take it for a variable; pass the program's path", argv[0])
	}
	all := append(append([]string{dir}, env...), argv...)
	for _, s := range all {
		if err := typeable(s); err != nil {
			return "", err
		}
	}
	var parts []string
	if dir != "" {
		if strings.HasPrefix(dir, "-") {
			dir = "./" + dir // not an option of cd
		}
		parts = append(parts, "cd "+Quote(dir))
	}
	for _, name := range slices.Sorted(maps.Keys(userVars)) {
		if !varName(name) {
			return "", fmt.Errorf("iTerm2 user variable %q: use letters, digits and _", name)
		}
		// The value is base64, so nothing in it is special to the shell
		// or to the terminal.
		v := base64.StdEncoding.EncodeToString([]byte(userVars[name]))
		parts = append(parts, `printf '\033]1337;SetUserVar=%s=%s\007' `+name+" "+v)
	}
	cmd := []string{"exec"}
	if len(env) > 0 {
		cmd = append(cmd, "env")
		for _, kv := range env {
			if !envlist.Valid(kv) {
				return "", fmt.Errorf("environment entry %q is not KEY=VALUE", kv)
			}
			cmd = append(cmd, Quote(kv))
		}
	}
	for _, a := range argv {
		cmd = append(cmd, Quote(a))
	}
	parts = append(parts, strings.Join(cmd, " "))
	return strings.Join(parts, " && "), nil
}

// Quote makes s one word for a POSIX shell, zsh or fish: single quotes,
// where each quote inside s closes the quoted run, adds \' and reopens,
// and each backslash likewise becomes \\ outside the quotes. fish (3.x)
// reads \\ and \' even inside single quotes, so a backslash left inside
// would change the text, and one before the closing quote would let the
// next argument be run as commands; outside quotes every one of these
// shells reads \\ as one backslash.
func Quote(s string) string {
	if s != "" && strings.Trim(s, safeChars) == "" {
		return s
	}
	return "'" + quoteReplacer.Replace(s) + "'"
}

var quoteReplacer = strings.NewReplacer("'", `'\''`, `\`, `'\\'`)

// safeChars never need quoting in any of those shells.
const safeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:+,"

// typeable refuses control characters: the line is typed, so a newline
// would press Enter in the middle of it and an escape would reach the
// terminal's line editor.
func typeable(s string) error {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%q contains a control character (%U); iTerm2 panes start commands by typing them, so arguments must be printable text", s, r)
		}
	}
	return nil
}

func varName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
