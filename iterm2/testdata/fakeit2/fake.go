package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

type fake struct {
	swift     bool
	statePath string
	st        it2test.State
}

func newFake(flavor string) *fake { return &fake{swift: flavor == string(it2test.Swift)} }

func (f *fake) version() string {
	if f.swift {
		return "it2 3.7.0"
	}
	return "it2, version 0.2.3"
}

// fail writes msg to stderr and ends the call with the flavour's code:
// the Swift it2 exits 1 for every failure.
func (f *fake) fail(python int, msg string) {
	fmt.Fprintln(os.Stderr, msg)
	if f.swift {
		panic(exitError(1))
	}
	panic(exitError(python))
}

func (f *fake) apiOff() {
	if f.swift {
		f.fail(1, "Error: Could not connect to iTerm2. Make sure iTerm2 is running and its Python API is enabled\n(Settings > General > Magic > Enable Python API).")
	}
	f.fail(2, "Error: Not running inside iTerm2 or Python API not enabled.\nEnable the Python API in iTerm2: Settings > General > Magic > Enable Python API.")
}

func (f *fake) notFound(id string) {
	if f.swift {
		f.fail(1, "Error: Session not found")
	}
	f.fail(3, fmt.Sprintf("Error: Session '%s' not found", id))
}

// opts is a parsed command line: click accepts options anywhere.
type opts struct {
	session, profile, window string
	vertical, force, asJSON  bool
	lines                    int // -n: 0 is every line
	pos                      []string
}

func (f *fake) parse(args []string) opts {
	var o opts
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() string {
			if i+1 >= len(args) {
				f.fail(2, "Error: Option '"+a+"' requires an argument.")
			}
			i++
			return args[i]
		}
		switch a {
		case "-s", "--session":
			o.session = value()
		case "-p", "--profile":
			o.profile = value()
		case "-w", "--window":
			o.window = value()
		case "-v", "--vertical":
			o.vertical = true
		case "-f", "--force":
			o.force = true
		case "--json":
			o.asJSON = true
		case "-n", "--lines":
			n, err := strconv.Atoi(value())
			if err != nil {
				f.fail(2, "Error: Invalid value for '--lines' / '-n': not a valid integer.")
			}
			o.lines = n
		case "--":
			o.pos = append(o.pos, args[i+1:]...)
			i = len(args)
		default:
			if strings.HasPrefix(a, "-") && len(a) > 1 {
				f.fail(2, "Error: No such option: "+a)
			}
			o.pos = append(o.pos, a)
		}
	}
	return o
}

func (f *fake) dispatch(args []string) {
	if len(args) >= 2 && args[0] == "tab" && args[1] == "new" {
		if f.st.APIOff {
			f.apiOff()
		}
		f.newTab(f.parse(args[2:]))
		return
	}
	if len(args) < 2 || args[0] != "session" {
		f.fail(2, "Usage: it2 [OPTIONS] COMMAND [ARGS]...\nError: this fake knows only 'session' commands and 'tab new'.")
	}
	if f.st.APIOff {
		f.apiOff()
	}
	o := f.parse(args[2:])
	switch args[1] {
	case "list":
		f.list(o)
	case "split":
		f.split(o)
	case "run":
		f.typeInto(o, "\r")
	case "send":
		f.typeInto(o, "")
	case "read":
		f.read(o)
	case "close":
		f.close(o)
	case "set-name":
		s := f.target(o.session)
		if len(o.pos) != 1 {
			f.fail(2, "Error: Missing argument 'NAME'.")
		}
		s.Name = o.pos[0]
		fmt.Println("Session name set to: " + s.Name)
	default:
		f.fail(2, "Error: No such command '"+args[1]+"'.")
	}
}

// target resolves -s: a bare UUID or "wXtYpZ:UUID"; none means the active
// session.
func (f *fake) target(id string) *it2test.Session {
	if id == "" {
		id = f.st.Active
	}
	_, bare, ok := strings.Cut(id, ":")
	if !ok {
		bare = id
	}
	for _, s := range f.st.Sessions {
		if strings.EqualFold(s.ID, bare) {
			return s
		}
	}
	f.notFound(id)
	return nil
}

func (f *fake) split(o opts) {
	from := f.target(o.session)
	if f.st.FailSplit != "" {
		f.fail(2, "Error: "+f.st.FailSplit)
	}
	if o.profile != "" && !contains(f.st.Profiles, o.profile) {
		f.fail(2, fmt.Sprintf("Error: Profile '%s' not found", o.profile))
	}
	f.st.NextTTY++
	s := &it2test.Session{
		Listed: it2test.Listed{
			ID: newUUID(), Name: "Default (-zsh)", Title: "-zsh",
			TTY:  fmt.Sprintf("/dev/ttys%03d", f.st.NextTTY),
			Rows: from.Rows, Cols: from.Cols / 2, WindowID: from.WindowID, TabID: from.TabID,
		},
		SplitFrom: from.ID, Vertical: o.vertical, Profile: o.profile,
	}
	if !o.vertical {
		s.Rows, s.Cols = from.Rows/2, from.Cols
	}
	f.st.Sessions = append(f.st.Sessions, s)
	if sh := shell(); len(sh) > 0 {
		f.host(s, sh, "")
	}
	fmt.Println("Created new pane: " + s.ID)
}

// newTab is 'it2 tab new [-w WINDOW] [-p PROFILE]': a tab in the given
// window (default: the active session's) holding one new session. It
// prints the tab's id, not the session's (it2's src/it2/commands/tab.py:
// "Created new tab: {tab.tab_id}"; an unknown window exits 3 with
// "Window '<id>' not found").
func (f *fake) newTab(o opts) {
	var in *it2test.Session
	for _, s := range f.st.Sessions {
		if o.window == "" && s.ID == f.st.Active || o.window != "" && s.WindowID == o.window {
			in = s
			break
		}
	}
	if in == nil {
		if o.window == "" {
			f.fail(3, "Error: No current window")
		}
		f.fail(3, fmt.Sprintf("Error: Window '%s' not found", o.window))
	}
	if o.profile != "" && !contains(f.st.Profiles, o.profile) {
		f.fail(2, fmt.Sprintf("Error: Profile '%s' not found", o.profile))
	}
	tab := 0
	for _, s := range f.st.Sessions {
		var n int
		fmt.Sscan(s.TabID, &n)
		tab = max(tab, n)
	}
	f.st.NextTTY++
	s := &it2test.Session{
		Listed: it2test.Listed{
			ID: newUUID(), Name: "Default (-zsh)", Title: "-zsh",
			TTY:  fmt.Sprintf("/dev/ttys%03d", f.st.NextTTY),
			Rows: in.Rows, Cols: in.Cols, WindowID: in.WindowID, TabID: fmt.Sprint(tab + 1),
		},
		Profile: o.profile,
	}
	f.st.Sessions = append(f.st.Sessions, s)
	if sh := shell(); len(sh) > 0 {
		f.host(s, sh, "")
	}
	fmt.Println("Created new tab: " + s.TabID)
}

func (f *fake) typeInto(o opts, end string) {
	s := f.target(o.session)
	if len(o.pos) != 1 {
		f.fail(2, "Error: Missing argument 'TEXT'.")
	}
	s.Typed = append(s.Typed, o.pos[0]+end)
	if s.Hosted {
		f.typeHosted(s, o.pos[0]+end)
	}
}

func (f *fake) close(o opts) {
	s := f.target(o.session)
	if !o.force {
		fmt.Print("Close session " + s.ID + "? [y/N]: ")
		if !isatty.IsTerminal(os.Stdin.Fd()) {
			f.fail(2, "\nError: Aborted! (no terminal to confirm; pass -f)")
		}
	}
	f.remove(s)
	if s.Hosted {
		f.hangUp(s)
	}
	fmt.Println("Session closed")
}

func (f *fake) list(o opts) {
	if o.asJSON {
		rows := []it2test.Listed{}
		for _, s := range f.st.Sessions {
			l := s.Listed
			if s.Hosted {
				if tty := f.hostedTTY(s); tty != "" {
					l.TTY = tty
				}
			}
			rows = append(rows, l)
		}
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Println(string(b))
		return
	}
	fmt.Print(table(f.st.Sessions, isatty.IsTerminal(os.Stdout.Fd())))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	return strings.ToUpper(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}
