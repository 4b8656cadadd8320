package native

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/paneteam/paneteam/internal/sys/program"
)

// Ghostty's AppleScript dictionary (macos/Ghostty.sdef in
// ghostty-org/ghostty, since 1.3.0) is driven through osascript. Every
// script here is a fixed text of paneteam's own with an 'on run argv'
// handler: what varies (a terminal id, a folder, the command line) is
// passed to osascript as an argument after the script and read with
// 'item N of argv', so nothing a person typed ever becomes AppleScript
// source. The first argument is always the fixed word ghosttyArgv0, so
// that osascript's option parsing (getopt, which stops at the first
// word that is not an option) can never take a later argument that
// starts with "-" for one of its own options.
const ghosttyArgv0 = "paneteam"

// The separators of the fields and records a script returns: ASCII unit
// and record separators, which neither a terminal id (a UUID), a tty
// path nor a working folder a shell reports can hold.
const (
	ghosttyFieldSep  = "\x1f"
	ghosttyRecordSep = "\x1e"
)

// ghosttyRunning guards every script: 'tell application "Ghostty"'
// would launch Ghostty when it is not running, and its answer (no
// terminals) would say every pane is gone.
const ghosttyRunning = `if not (application "Ghostty" is running) then error "Ghostty is not running" number 1001`

// ghosttyVersionScript reads the application's version, which every
// application answers whether or not it has a dictionary (so a Ghostty
// older than 1.3.0 is told apart from one that refuses).
var ghosttyVersionScript = []string{
	"on run argv",
	ghosttyRunning,
	`return version of application "Ghostty"`,
	"end run",
}

// ghosttyEnabledScript makes a surface configuration, the cheapest
// command: commands go through Ghostty's validateScript, which refuses
// them when macos-applescript is false, while element lookups then just
// come back empty (AppDelegate+AppleScript.swift).
var ghosttyEnabledScript = []string{
	"on run argv",
	ghosttyRunning,
	`tell application "Ghostty"`,
	"set cfg to new surface configuration",
	"end tell",
	`return "ok"`,
	"end run",
}

// ghosttyListScript lists every terminal: id, tty, working directory.
// tty is read in a try block: Ghostty 1.3.0 and 1.3.1 have no tty
// property (it came after 1.3.1), and there the term fails at run time.
var ghosttyListScript = []string{
	"on run argv",
	ghosttyRunning,
	`set us to character id 31`,
	`set rs to character id 30`,
	`set out to ""`,
	`tell application "Ghostty"`,
	"repeat with t in terminals",
	`set tt to ""`,
	"try",
	"set tt to tty of t",
	"end try",
	"set out to out & (id of t) & us & tt & us & (working directory of t) & rs",
	"end repeat",
	"end tell",
	"return out",
	"end run",
}

// ghosttyFrontScript is the front window's selected tab's focused
// terminal: id and working directory (the lead's terminal on a Ghostty
// without tty, checked against the lead's folder).
var ghosttyFrontScript = []string{
	"on run argv",
	ghosttyRunning,
	`set us to character id 31`,
	`tell application "Ghostty"`,
	"set t to focused terminal of selected tab of front window",
	"return (id of t) & us & (working directory of t)",
	"end tell",
	"end run",
}

// ghosttySplitScript splits terminal argv[2] in dir (one of the split
// direction enumerators, a word of paneteam's own) with a configuration
// running the command line argv[3] in the folder argv[4] ("" leaves
// Ghostty's), and returns the new terminal's id. wait after command is
// false, so the terminal closes when its program ends.
func ghosttySplitScript(dir string) []string {
	return []string{
		"on run argv",
		ghosttyRunning,
		"set tid to item 2 of argv",
		"set cmd to item 3 of argv",
		"set wd to item 4 of argv",
		`tell application "Ghostty"`,
		"set cfg to new surface configuration",
		"set command of cfg to cmd",
		"set wait after command of cfg to false",
		`if wd is not "" then set initial working directory of cfg to wd`,
		"set nt to split (terminal id tid) direction " + dir + " with configuration cfg",
		"return id of nt",
		"end tell",
		"end run",
	}
}

// ghosttyTabScript opens a tab in the window holding terminal argv[2],
// running argv[3] in argv[4] as ghosttySplitScript does, and returns
// its terminal's id.
var ghosttyTabScript = []string{
	"on run argv",
	ghosttyRunning,
	"set tid to item 2 of argv",
	"set cmd to item 3 of argv",
	"set wd to item 4 of argv",
	`tell application "Ghostty"`,
	"set cfg to new surface configuration",
	"set command of cfg to cmd",
	"set wait after command of cfg to false",
	`if wd is not "" then set initial working directory of cfg to wd`,
	"repeat with w in windows",
	"if (id of terminals of w) contains tid then",
	"set nb to new tab in w with configuration cfg",
	"return id of focused terminal of nb",
	"end if",
	"end repeat",
	`error "Terminal surface is no longer available." number -1728`,
	"end tell",
	"end run",
}

// ghosttyCloseScript closes terminal argv[2] without asking (Ghostty's
// close handler passes withConfirmation: false).
var ghosttyCloseScript = []string{
	"on run argv",
	ghosttyRunning,
	"set tid to item 2 of argv",
	`tell application "Ghostty"`,
	"close (terminal id tid)",
	"end tell",
	"end run",
}

// ghosttyActionScript performs the keybinding action argv[3] (such as
// "set_surface_title:NAME") on terminal argv[2] and returns whether
// Ghostty performed it.
var ghosttyActionScript = []string{
	"on run argv",
	ghosttyRunning,
	"set tid to item 2 of argv",
	"set act to item 3 of argv",
	`tell application "Ghostty"`,
	"return perform action act on (terminal id tid)",
	"end tell",
	"end run",
}

// ghosttyArgs is osascript's command line for script with args: each
// line its own -e (osascript joins them with newlines), then
// ghosttyArgv0 and args, which 'on run argv' receives as a list.
func ghosttyArgs(script []string, args ...string) []string {
	out := make([]string, 0, 2*len(script)+1+len(args))
	for _, l := range script {
		out = append(out, "-e", l)
	}
	out = append(out, ghosttyArgv0)
	return append(out, args...)
}

// The errors a Ghostty script can meet, by what osascript prints.
var (
	// ErrGhosttyGone is a terminal Ghostty no longer has: 'terminal id X'
	// names none (-1728), or its surface went between lookup and command.
	ErrGhosttyGone = errors.New("Ghostty has no such terminal")
	// ErrGhosttyDisabled is Ghostty's macos-applescript set to false.
	ErrGhosttyDisabled = errors.New("AppleScript is turned off in Ghostty")
	// ErrGhosttyNotAuthorized is macOS refusing the Apple events.
	ErrGhosttyNotAuthorized = errors.New("macOS does not allow this program to control Ghostty")
	// ErrGhosttyNotRunning is no Ghostty running.
	ErrGhosttyNotRunning = errors.New("Ghostty is not running")
)

// Fixes, each naming where the setting is.
const (
	ghosttyFixDisabled = "set macos-applescript = true in Ghostty's configuration (~/.config/ghostty/config), reload it (Ghostty → Reload Configuration), and try again"
	ghosttyFixAuth     = "allow it in System Settings → Privacy & Security → Automation: under the terminal app paneteam runs in (Ghostty), turn on Ghostty; or run 'tccutil reset AppleEvents com.mitchellh.ghostty' and accept the prompt on the next run"
	ghosttyFixUpdate   = "update Ghostty to 1.3.0 or later (Ghostty → Check for Updates…), or run tmux inside Ghostty and start paneteam there"
)

// osascriptErrNum finds the error number osascript ends an execution
// error with: "... execution error: Ghostty got an error: MSG (-1728)".
// Compiled at its first use, not at package init, which every paneteam
// start runs (about 76K instructions of a --version's 0.8M).
var osascriptErrNum = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\((-?\d+)\)\s*$`) })

// ghosttyError turns a failed osascript call into an error that says
// what is off and how to fix it. what is the call, as a person would
// say it ("split terminal X").
func ghosttyError(what string, err error) error {
	var pe *program.Error
	if !errors.As(err, &pe) {
		return fmt.Errorf("Ghostty: %s: %w", what, err)
	}
	msg := strings.TrimSpace(pe.Stderr)
	// osascript starts the message with where in the script it came from
	// ("0:123: execution error: ").
	if i := strings.Index(msg, "execution error: "); i >= 0 {
		msg = msg[i+len("execution error: "):]
	}
	num := 0
	if m := osascriptErrNum().FindStringSubmatch(msg); m != nil {
		num, _ = strconv.Atoi(m[1])
	}
	switch {
	case num == -1743 || strings.Contains(msg, "Not authorized to send Apple events"):
		return fmt.Errorf("%w (%s): %s", ErrGhosttyNotAuthorized, msg, ghosttyFixAuth)
	case num == -10003 || strings.Contains(msg, "macos-applescript"):
		return fmt.Errorf("%w (%s): %s", ErrGhosttyDisabled, msg, ghosttyFixDisabled)
	case num == 1001 || strings.Contains(msg, "Ghostty is not running"):
		return fmt.Errorf("%w: start paneteam from a Ghostty terminal", ErrGhosttyNotRunning)
	case num == -1728 || strings.Contains(msg, "no longer available"):
		return fmt.Errorf("Ghostty: %s: %w (%s)", what, ErrGhosttyGone, msg)
	case strings.Contains(msg, "Failed to create tab"):
		return fmt.Errorf("Ghostty: %s: Ghostty could not make a tab (%s): new tabs fail while a window is in non-native fullscreen, and with tabs turned off for the window; leave fullscreen, or use --layout side or tiled for splits", what, msg)
	}
	if msg == "" {
		msg = pe.Err.Error()
	}
	return fmt.Errorf("Ghostty: %s: %s", what, msg)
}

// ghosttyTerminal is one terminal of ghosttyListScript's answer.
type ghosttyTerminal struct {
	ID, TTY, Cwd string
}

// parseGhosttyTerminals reads ghosttyListScript's answer.
func parseGhosttyTerminals(out string) ([]ghosttyTerminal, error) {
	out = strings.TrimSuffix(out, "\n")
	var ts []ghosttyTerminal
	for _, rec := range strings.Split(out, ghosttyRecordSep) {
		if rec == "" {
			continue
		}
		f := strings.Split(rec, ghosttyFieldSep)
		if len(f) != 3 {
			return nil, fmt.Errorf("Ghostty's list of terminals has a record of %d fields, not 3: %q", len(f), rec)
		}
		ts = append(ts, ghosttyTerminal{ID: f[0], TTY: f[1], Cwd: f[2]})
	}
	return ts, nil
}

// ghosttyValidID says whether id looks like a terminal id Ghostty gives:
// a surface's UUID (ScriptTerminal.stableID), which never holds a quote,
// a control character or a space.
func ghosttyValidID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	return true
}

// ghosttyCommand is the command line a new terminal runs: Ghostty takes
// a surface configuration's command as one text and runs it through a
// shell (/bin/sh -c), so the line is paneteam's own, exec of pane-exec
// with a 0600 launch file (WriteExecFile), both paths quoted for sh.
// Nothing of the teammate's argv is in it.
func ghosttyCommand(exe, file string) string {
	return "exec " + shQuote(exe) + " pane-exec " + shQuote(file)
}

// shQuote quotes s for a POSIX shell: in single quotes, each single
// quote closed, escaped and reopened.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
