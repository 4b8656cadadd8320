// Command zellij is a fake of Zellij's command line for paneteam's tests:
// the `zellij action` subcommands paneteam uses, following Zellij 0.44
// and its documentation (https://zellij.dev/documentation/cli-actions.html,
// zellij-run.html, cli-recipes.html, layouts.html). Flags the real CLI
// does not have are refused as clap refuses them (exit 2), so a driver
// bug shows.
//
// Like the real one it splits the FOCUSED pane of the active tab
// (new-pane --direction), focuses the new pane, and closes the focused
// pane (close-pane). A command pane started without --close-on-exit
// stays, held, when its command ends. new-pane prints the new pane's id
// (terminal_N) and new-tab the new tab's id, as 0.44 does.
//
// Sessions live under $ZELLIJ_SOCKET_DIR (the real variable for where
// Zellij keeps its session sockets): <dir>/<session>/state.json, with
// every call logged in state.json.calls. The session is --session NAME,
// else $ZELLIJ_SESSION_NAME. Each pane's program runs under a
// pseudo-terminal in a detached host (internal/panes/native/nativetest).
//
// The fake is Zellij 0.44.2; FAKEZELLIJ_VERSION ("zellij 0.43.1") makes
// it an older one, whose rename-pane, dump-screen and write-chars have no
// --pane-id and which has no send-keys.
//
// Fake only: `zellij --session NAME start [--cwd DIR] -- PROG...` starts
// the session with a first pane running PROG and returns once it runs.
// Panes get the environment `start` had plus ZELLIJ=0,
// ZELLIJ_SESSION_NAME, ZELLIJ_PANE_ID and TERM=xterm-256color.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/sys/envlist"
)

const (
	tabRows, tabCols = 48, 160
	defaultShell     = "/bin/sh"
	topUsage         = "zellij [OPTIONS] [SUBCOMMAND]"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == nativetest.HostCommand {
		if err := nativetest.RunHost(os.Args[2:]); err != nil {
			os.Exit(1)
		}
		return
	}
	os.Exit(nativetest.Exit(run(os.Args[1:])))
}

func run(args []string) error {
	g, rest, err := nativetest.ParseArgs(args, []nativetest.Flag{
		{Names: []string{"--session", "-s"}, Value: true}, {Names: []string{"--version", "-V"}},
		{Names: []string{"--config", "-c"}, Value: true}, {Names: []string{"--config-dir"}, Value: true},
		{Names: []string{"--data-dir"}, Value: true}, {Names: []string{"--debug", "-d"}},
	}, true, topUsage)
	if err != nil {
		return err
	}
	if _, ok := g["--version"]; ok {
		fmt.Println(version())
		return nil
	}
	session, ok := g["--session"]
	if !ok {
		session = os.Getenv("ZELLIJ_SESSION_NAME")
	}
	dir := os.Getenv("ZELLIJ_SOCKET_DIR")
	if dir == "" {
		return errors.New("fake zellij: set ZELLIJ_SOCKET_DIR to the folder the fake keeps its sessions in")
	}
	if session != "" {
		nativetest.LogCall(statePath(dir, session), args)
	}
	if len(rest) == 0 {
		return &nativetest.UsageError{Msg: "fake zellij: attaching a client is not modelled; use start or action", Usage: topUsage}
	}
	switch rest[0] {
	case "start":
		return start(dir, session, rest[1:])
	case "action":
		return action(dir, session, rest[1:])
	}
	return &nativetest.UsageError{Msg: fmt.Sprintf("unrecognized subcommand '%s'", rest[0]), Usage: topUsage}
}

func statePath(dir, session string) string { return filepath.Join(dir, session, "state.json") }

func start(dir, session string, args []string) error {
	f, argv, err := nativetest.ParseArgs(args, []nativetest.Flag{{Names: []string{"--cwd"}, Value: true}}, true, "zellij start [--cwd DIR] -- PROG...")
	if err != nil {
		return err
	}
	if session == "" {
		return errors.New("fake zellij start: give the session a name with --session NAME")
	}
	if err := os.MkdirAll(filepath.Join(dir, session), 0o700); err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	if c, ok := f["--cwd"]; ok {
		cwd = c
	}
	st := statePath(dir, session)
	var id int
	err = nativetest.Update(st, func(s *nativetest.State) error {
		s.Kind, s.Session, s.BaseEnv = "zellij", session, os.Environ()
		s.ActiveTab = s.NextTab
		id = add(s, nativetest.Pane{TabID: s.NextTab, TabName: "Tab #1", Rows: tabRows, Cols: tabCols, SplitFrom: -1, Cwd: cwd}, argv, true)
		s.NextTab++
		return nil
	})
	if err != nil {
		return err
	}
	return nativetest.StartPane(st, id)
}

// add puts a focused pane running argv into s and returns its id.
func add(s *nativetest.State, p nativetest.Pane, argv []string, closeOnExit bool) int {
	p.ID = s.NextPane
	s.NextPane++
	if len(argv) == 0 {
		argv = []string{defaultShell}
		closeOnExit = true // a shell pane closes when the shell exits
	}
	p.Argv, p.CloseOnExit = argv, closeOnExit
	if p.Title == "" {
		p.Title = strings.Join(argv, " ")
	}
	for i := range s.Panes {
		if s.Panes[i].TabID == p.TabID {
			s.Panes[i].Focused = false
		}
	}
	p.Focused = true
	env := append([]string(nil), s.BaseEnv...)
	env = envlist.Set(env, "ZELLIJ", "0")
	env = envlist.Set(env, "ZELLIJ_SESSION_NAME", s.Session)
	env = envlist.Set(env, "ZELLIJ_PANE_ID", strconv.Itoa(p.ID))
	env = envlist.Set(env, "TERM", "xterm-256color")
	p.Env = env
	s.Panes = append(s.Panes, p)
	return p.ID
}

func action(dir, session string, args []string) error {
	const usage = "zellij action <SUBCOMMAND>"
	if len(args) == 0 {
		return &nativetest.UsageError{Msg: "a subcommand is required", Usage: usage}
	}
	cmds := map[string]func(string, []string) error{
		"new-pane": newPane, "new-tab": newTab, "query-tab-names": queryTabNames,
		"list-panes": listPanes, "close-pane": closePane, "rename-pane": renamePane,
		"dump-screen": dumpScreen, "write-chars": writeChars, "send-keys": sendKeys,
	}
	c, ok := cmds[args[0]]
	if !ok {
		return &nativetest.UsageError{Msg: fmt.Sprintf("unrecognized subcommand '%s'", args[0]), Usage: usage}
	}
	return c(connect(dir, session), args[1:])
}

// connect names the session's state; a session that does not run fails
// when the subcommand reaches it (after its arguments were checked).
func connect(dir, session string) string {
	if session == "" {
		return ""
	}
	return statePath(dir, session)
}

func reach(st string) error {
	if st == "" {
		return errors.New("Please specify the session name to send actions to. The following sessions are active:")
	}
	if _, err := nativetest.Load(st); err != nil {
		return fmt.Errorf("Session '%s' not found.", filepath.Base(filepath.Dir(st)))
	}
	return nil
}

var newPaneFlags = []nativetest.Flag{
	{Names: []string{"--direction", "-d"}, Value: true}, {Names: []string{"--plugin", "-p"}, Value: true},
	{Names: []string{"--cwd"}, Value: true}, {Names: []string{"--floating", "-f"}},
	{Names: []string{"--in-place", "-i"}}, {Names: []string{"--name", "-n"}, Value: true},
	{Names: []string{"--close-on-exit", "-c"}}, {Names: []string{"--start-suspended", "-s"}},
	{Names: []string{"--configuration"}, Value: true}, {Names: []string{"--skip-plugin-cache"}},
	{Names: []string{"--x", "-x"}, Value: true}, {Names: []string{"--y", "-y"}, Value: true},
	{Names: []string{"--width"}, Value: true}, {Names: []string{"--height"}, Value: true},
	{Names: []string{"--pinned"}, Value: true}, {Names: []string{"--stacked"}},
	{Names: []string{"--borderless", "-b"}, Value: true},
}

func newPane(st string, args []string) error {
	const usage = "zellij action new-pane [OPTIONS] [--] [COMMAND]..."
	f, argv, err := nativetest.ParseArgs(args, newPaneFlags, true, usage)
	if err != nil {
		return err
	}
	dir, ok := f["--direction"]
	switch dir {
	case "right", "left", "up", "down", "Right", "Left", "Up", "Down":
		dir = strings.ToLower(dir)
	default:
		if ok {
			return &nativetest.UsageError{Msg: fmt.Sprintf("invalid value '%s' for '--direction <DIRECTION>'", dir), Usage: usage}
		}
	}
	for _, unmodelled := range []string{"--plugin", "--floating", "--in-place", "--stacked", "--x", "--y", "--width", "--height"} {
		if _, ok := f[unmodelled]; ok {
			return fmt.Errorf("fake zellij: new-pane %s is not modelled", unmodelled)
		}
	}
	if err := reach(st); err != nil {
		return err
	}
	_, closeOnExit := f["--close-on-exit"]
	var id int
	err = nativetest.Update(st, func(s *nativetest.State) error {
		parent := focused(s)
		if parent == nil {
			return errors.New("no pane in focus")
		}
		if dir == "" {
			// Zellij splits the focused pane along its longer side.
			dir = "down"
			if parent.Cols > parent.Rows*2 {
				dir = "right"
			}
		}
		p := nativetest.Pane{TabID: parent.TabID, TabName: parent.TabName, Rows: parent.Rows, Cols: parent.Cols,
			Cwd: parent.Cwd, SplitFrom: parent.ID, Direction: dir, Title: f["--name"]}
		if dir == "left" || dir == "right" {
			p.Cols = parent.Cols / 2
			parent.Cols -= p.Cols
		} else {
			p.Rows = parent.Rows / 2
			parent.Rows -= p.Rows
		}
		if c, ok := f["--cwd"]; ok {
			p.Cwd = c
		}
		id = add(s, p, argv, closeOnExit)
		return nil
	})
	if err != nil {
		return err
	}
	if err := nativetest.StartPane(st, id); err != nil {
		return err
	}
	fmt.Printf("terminal_%d\n", id)
	return nil
}

func focused(s *nativetest.State) *nativetest.Pane {
	var last *nativetest.Pane
	for i := range s.Panes {
		p := &s.Panes[i]
		if p.TabID != s.ActiveTab {
			continue
		}
		if p.Focused {
			return p
		}
		last = p
	}
	return last
}

func newTab(st string, args []string) error {
	const usage = "zellij action new-tab [OPTIONS]"
	f, pos, err := nativetest.ParseArgs(args, []nativetest.Flag{
		{Names: []string{"--layout", "-l"}, Value: true}, {Names: []string{"--layout-dir"}, Value: true},
		{Names: []string{"--name", "-n"}, Value: true}, {Names: []string{"--cwd", "-c"}, Value: true},
	}, false, usage)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return &nativetest.UsageError{Msg: fmt.Sprintf("unexpected argument '%s' found", pos[0]), Usage: usage}
	}
	var lp layoutPane
	if l, ok := f["--layout"]; ok {
		if lp, err = readLayout(l); err != nil {
			return err
		}
	}
	if err := reach(st); err != nil {
		return err
	}
	var id, tab int
	err = nativetest.Update(st, func(s *nativetest.State) error {
		tab = s.NextTab
		s.NextTab++
		name := f["--name"]
		if name == "" {
			name = fmt.Sprintf("Tab #%d", tab+1)
		}
		cwd := f["--cwd"]
		if cur := focused(s); cwd == "" && cur != nil {
			cwd = cur.Cwd
		}
		if lp.cwd != "" {
			if filepath.IsAbs(lp.cwd) || cwd == "" {
				cwd = lp.cwd
			} else {
				cwd = filepath.Join(cwd, lp.cwd)
			}
		}
		s.ActiveTab = tab
		var argv []string
		if lp.command != "" {
			argv = append([]string{lp.command}, lp.args...)
		}
		id = add(s, nativetest.Pane{TabID: tab, TabName: name, Rows: tabRows, Cols: tabCols, SplitFrom: -1, Cwd: cwd, Title: lp.name}, argv, lp.closeOnExit)
		return nil
	})
	if err != nil {
		return err
	}
	if err := nativetest.StartPane(st, id); err != nil {
		return err
	}
	fmt.Println(tab)
	return nil
}

type layoutPane struct {
	command, name, cwd string
	args               []string
	closeOnExit        bool
}

// readLayout reads a layout holding one command pane, as Zellij's
// layouts spell it (https://zellij.dev/documentation/creating-a-layout):
// `layout { pane command="..." name="..." cwd="..." { args "..."; close_on_exit true } }`.
func readLayout(path string) (layoutPane, error) {
	var lp layoutPane
	b, err := os.ReadFile(path)
	if err != nil {
		return lp, fmt.Errorf("Failed to parse layout: %w", err)
	}
	nodes, err := parseKDL(string(b))
	if err != nil {
		return lp, err
	}
	if len(nodes) != 1 || nodes[0].name != "layout" || len(nodes[0].children) != 1 || nodes[0].children[0].name != "pane" {
		return lp, errors.New("fake zellij: only a layout with one pane is modelled")
	}
	pane := nodes[0].children[0]
	for k, v := range pane.props {
		switch k {
		case "command":
			lp.command = v
		case "name":
			lp.name = v
		case "cwd":
			lp.cwd = v
		default:
			return lp, fmt.Errorf("Failed to parse layout: unknown pane property %q", k)
		}
	}
	for _, c := range pane.children {
		switch c.name {
		case "args":
			lp.args = c.args
		case "close_on_exit":
			lp.closeOnExit = len(c.args) == 1 && c.args[0] == "true"
		default:
			return lp, fmt.Errorf("Failed to parse layout: unknown pane child %q", c.name)
		}
	}
	return lp, nil
}

func queryTabNames(st string, args []string) error {
	if _, _, err := nativetest.ParseArgs(args, nil, false, "zellij action query-tab-names"); err != nil {
		return err
	}
	if err := reach(st); err != nil {
		return err
	}
	s, err := nativetest.Load(st)
	if err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, p := range s.Panes {
		if !seen[p.TabID] {
			seen[p.TabID] = true
			fmt.Println(p.TabName)
		}
	}
	return nil
}

func listPanes(st string, args []string) error {
	f, _, err := nativetest.ParseArgs(args, []nativetest.Flag{{Names: []string{"--json", "-j"}}}, false, "zellij action list-panes [OPTIONS]")
	if err != nil {
		return err
	}
	if err := reach(st); err != nil {
		return err
	}
	s, err := nativetest.Load(st)
	if err != nil {
		return err
	}
	if _, ok := f["--json"]; !ok {
		fmt.Println("PANE_ID      TYPE      TITLE")
		for _, p := range s.Panes {
			fmt.Printf("terminal_%-3d terminal  %s\n", p.ID, p.Title)
		}
		return nil
	}
	out := []map[string]any{}
	for _, p := range s.Panes {
		var status any
		if p.Exited {
			status = p.ExitStatus
		}
		out = append(out, map[string]any{
			"id": p.ID, "is_plugin": false, "is_focused": p.Focused, "is_floating": false,
			"title": p.Title, "exited": p.Exited, "exit_status": status, "is_held": p.Exited,
			"pane_rows": p.Rows, "pane_columns": p.Cols, "tab_id": p.TabID, "tab_name": p.TabName,
			"terminal_command": strings.Join(p.Argv, " "), "pane_command": filepath.Base(p.Argv[0]), "pane_cwd": p.Cwd,
		})
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Println(string(b))
	return nil
}

func closePane(st string, args []string) error {
	if _, _, err := nativetest.ParseArgs(args, nil, false, "zellij action close-pane"); err != nil {
		return err
	}
	if err := reach(st); err != nil {
		return err
	}
	var gone nativetest.Pane
	err := nativetest.Update(st, func(s *nativetest.State) error {
		p := focused(s)
		if p == nil {
			return nil
		}
		gone = *p
		s.Remove(p.ID)
		if q := focused(s); q != nil {
			q.Focused = true
		}
		return nil
	})
	if err == nil && gone.HostPID > 0 {
		nativetest.KillHost(gone)
	}
	return err
}
