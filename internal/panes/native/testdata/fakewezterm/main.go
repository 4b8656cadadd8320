// Command wezterm is a fake of WezTerm's command line for paneteam's
// tests: the `wezterm cli` subcommands paneteam uses, following WezTerm
// 20240203-110809-5046fc22 and its documentation
// (https://wezterm.org/cli/cli/split-pane.html, spawn.html, list.html,
// kill-pane.html, set-tab-title.html, get-text.html, send-text.html). Flags the real CLI does not have
// are refused as clap refuses them (exit 2), so a driver bug shows.
//
// The mux is found as the real CLI finds it (wezterm-client's
// compute_unix_domain): $WEZTERM_UNIX_SOCKET; else, unless --prefer-mux,
// the GUI instance the runtime folder's symlink x11-$DISPLAY-<class>
// (wayland-$WAYLAND_DISPLAY-<class>) points at; else the default unix
// domain's socket, <runtime>/sock. A socket that does not answer, found
// any way but through the GUI symlink, makes the real CLI start a
// wezterm-mux-server unless --no-auto-start is given; the fake then
// starts an empty mux (no panes) at <runtime>/sock, where that server
// listens. The fake's runtime folder is $WEZTERM_FAKE_RUNTIME_DIR,
// standing for $XDG_RUNTIME_DIR/wezterm, which a test must never touch:
// unset, there is no GUI to find, no default domain and no auto-start.
// The fake keeps its windows, tabs and panes in state.json next to the
// socket path, and logs every call in state.json.calls. Each pane's
// program runs under a pseudo-terminal in a detached host
// (internal/panes/native/nativetest).
//
// Fake only: `wezterm start [--cwd DIR] [--workspace NAME] -- PROG...`
// starts the terminal (creates the socket file and the state) with a
// first pane running PROG, and returns once it runs. New panes get the
// environment `start` had (not the CLI caller's) plus WEZTERM_PANE,
// WEZTERM_UNIX_SOCKET, TERM_PROGRAM=WezTerm and TERM=xterm-256color.
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
	windowRows, windowCols = 48, 160
	defaultShell           = "/bin/sh"
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
	sock := os.Getenv("WEZTERM_UNIX_SOCKET")
	if sock != "" {
		nativetest.LogCall(statePath(sock), args)
	}
	if len(args) == 0 {
		return &nativetest.UsageError{Msg: "a subcommand is required", Usage: "wezterm [OPTIONS] [COMMAND]"}
	}
	switch args[0] {
	case "start":
		return start(sock, args[1:])
	case "cli":
		return cli(sock, args[1:])
	}
	return &nativetest.UsageError{Msg: fmt.Sprintf("unrecognized subcommand '%s'", args[0]), Usage: "wezterm [OPTIONS] [COMMAND]"}
}

func statePath(sock string) string { return filepath.Join(filepath.Dir(sock), "state.json") }

func start(sock string, args []string) error {
	f, argv, err := nativetest.ParseArgs(args, []nativetest.Flag{
		{Names: []string{"--cwd"}, Value: true}, {Names: []string{"--workspace"}, Value: true},
	}, true, "wezterm start [OPTIONS] [PROG]...")
	if err != nil {
		return err
	}
	if sock == "" {
		return errors.New("fake wezterm start: set WEZTERM_UNIX_SOCKET to the socket path the fake terminal should use")
	}
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	if c, ok := f["--cwd"]; ok {
		cwd = c
	}
	ws := f["--workspace"]
	if ws == "" {
		ws = "default"
	}
	var id int
	err = nativetest.Update(statePath(sock), func(s *nativetest.State) error {
		s.Kind, s.Socket = "wezterm", sock
		s.BaseEnv = os.Environ()
		id = add(s, nativetest.Pane{WindowID: s.NextWindow, TabID: s.NextTab, Workspace: ws,
			Rows: windowRows, Cols: windowCols, SplitFrom: -1, Cwd: cwd}, argv)
		s.NextWindow++
		s.NextTab++
		return nil
	})
	if err != nil {
		return err
	}
	return nativetest.StartPane(statePath(sock), id)
}

// add puts a new pane running argv into s and returns its id.
func add(s *nativetest.State, p nativetest.Pane, argv []string) int {
	p.ID = s.NextPane
	s.NextPane++
	if len(argv) == 0 {
		argv = []string{defaultShell}
	}
	p.Argv = argv
	p.Title = filepath.Base(argv[0])
	p.CloseOnExit = true // exit_behavior = "Close", the default
	env := append([]string(nil), s.BaseEnv...)
	env = envlist.Set(env, "WEZTERM_PANE", strconv.Itoa(p.ID))
	env = envlist.Set(env, "WEZTERM_UNIX_SOCKET", s.Socket)
	env = envlist.Set(env, "TERM_PROGRAM", "WezTerm")
	env = envlist.Set(env, "TERM", "xterm-256color")
	p.Env = env
	s.Panes = append(s.Panes, p)
	return p.ID
}

// serveAutomatically: connect starts a mux server when the socket does
// not answer (muxSocket, --no-auto-start).
var serveAutomatically bool

// muxSocket is the socket the CLI connects to ("": none it can find) and
// whether it may start a mux server there; env is $WEZTERM_UNIX_SOCKET.
func muxSocket(env string, g map[string]string) (string, bool) {
	if env != "" {
		return env, true
	}
	runtime := os.Getenv("WEZTERM_FAKE_RUNTIME_DIR")
	if runtime == "" {
		return "", false
	}
	if _, prefer := g["--prefer-mux"]; !prefer {
		class := g["--class"]
		if class == "" {
			class = "org.wezfurlong.wezterm"
		}
		name := "x11-" + os.Getenv("DISPLAY") + "-" + class
		if os.Getenv("DISPLAY") == "" {
			name = "x11-:0-" + class
		}
		if wl := os.Getenv("WAYLAND_DISPLAY"); wl != "" {
			name = "wayland-" + wl + "-" + class
		}
		if gui, err := os.Readlink(filepath.Join(runtime, name)); err == nil {
			return gui, false
		}
	}
	return filepath.Join(runtime, "sock"), true
}

// autoStart is the wezterm-mux-server the real CLI starts for a socket
// that does not answer: a mux with no panes, listening at the default
// domain's socket in the runtime folder.
func autoStart() {
	runtime := os.Getenv("WEZTERM_FAKE_RUNTIME_DIR")
	if runtime == "" {
		return
	}
	sock := filepath.Join(runtime, "sock")
	if _, err := os.Stat(sock); err == nil {
		return
	}
	if os.MkdirAll(runtime, 0o700) != nil || os.WriteFile(sock, nil, 0o600) != nil {
		return
	}
	nativetest.Update(statePath(sock), func(s *nativetest.State) error {
		s.Kind, s.Socket = "wezterm", sock
		return nil
	})
}

// connect is the mux connection every cli subcommand makes first.
func connect(sock string) (string, error) {
	if sock == "" {
		return "", errors.New("Error: failed to connect to the mux: no running wezterm instance found (WEZTERM_UNIX_SOCKET is not set)")
	}
	if _, err := os.Stat(sock); err != nil && serveAutomatically {
		autoStart()
	}
	if _, err := os.Stat(sock); err != nil {
		return "", fmt.Errorf("Error: failed to connect to Socket(%q): %v", sock, err)
	}
	st := statePath(sock)
	if _, err := nativetest.Load(st); err != nil {
		return "", fmt.Errorf("Error: failed to connect to Socket(%q): %v", sock, err)
	}
	return st, nil
}

func cli(sock string, args []string) error {
	g, rest, err := nativetest.ParseArgs(args, []nativetest.Flag{
		{Names: []string{"--no-auto-start"}}, {Names: []string{"--prefer-mux"}}, {Names: []string{"--class"}, Value: true},
	}, true, "wezterm cli [OPTIONS] <COMMAND>")
	if err != nil {
		return err
	}
	sock, serveAutomatically = muxSocket(sock, g)
	if _, no := g["--no-auto-start"]; no {
		serveAutomatically = false
	}
	if sock != "" && os.Getenv("WEZTERM_UNIX_SOCKET") == "" {
		nativetest.LogCall(statePath(sock), args)
	}
	if len(rest) == 0 {
		return &nativetest.UsageError{Msg: "a subcommand is required", Usage: "wezterm cli [OPTIONS] <COMMAND>"}
	}
	sub, rest := rest[0], rest[1:]
	cmds := map[string]func(string, []string) error{
		"list": list, "split-pane": splitPane, "spawn": spawn, "kill-pane": killPane, "set-tab-title": setTabTitle,
		"get-text": getText, "send-text": sendText,
	}
	c, ok := cmds[sub]
	if !ok {
		return &nativetest.UsageError{Msg: fmt.Sprintf("unrecognized subcommand '%s'", sub), Usage: "wezterm cli [OPTIONS] <COMMAND>"}
	}
	// Arguments are checked before the mux is reached, as clap does.
	return c(sock, rest)
}

// paneID resolves --pane-id, else $WEZTERM_PANE, as the real CLI does.
func paneID(f map[string]string) (int, error) {
	v, ok := f["--pane-id"]
	if !ok {
		v = os.Getenv("WEZTERM_PANE")
		if v == "" {
			return 0, errors.New("Error: --pane-id was not specified and $WEZTERM_PANE is not set in the environment, and I couldn't determine which pane was currently focused")
		}
	}
	id, err := strconv.Atoi(v)
	if err != nil || id < 0 {
		return 0, &nativetest.UsageError{Msg: fmt.Sprintf("invalid value '%s' for '--pane-id <PANE_ID>': invalid digit found in string", v), Usage: "wezterm cli [OPTIONS] <COMMAND>"}
	}
	return id, nil
}

func notFound(id int) error { return fmt.Errorf("Error: pane %d not found", id) }

type listEntry struct {
	WindowID  int            `json:"window_id"`
	TabID     int            `json:"tab_id"`
	PaneID    int            `json:"pane_id"`
	Workspace string         `json:"workspace"`
	Size      map[string]int `json:"size"`
	Title     string         `json:"title"`
	Cwd       string         `json:"cwd"`
	CursorX   int            `json:"cursor_x"`
	CursorY   int            `json:"cursor_y"`
	Shape     string         `json:"cursor_shape"`
	Vis       string         `json:"cursor_visibility"`
	LeftCol   int            `json:"left_col"`
	TopRow    int            `json:"top_row"`
	TabTitle  string         `json:"tab_title"`
	WinTitle  string         `json:"window_title"`
	IsActive  bool           `json:"is_active"`
	IsZoomed  bool           `json:"is_zoomed"`
	TTYName   *string        `json:"tty_name"`
}

func list(sock string, args []string) error {
	f, _, err := nativetest.ParseArgs(args, []nativetest.Flag{{Names: []string{"--format"}, Value: true}}, false, "wezterm cli list [OPTIONS]")
	if err != nil {
		return err
	}
	format := "table"
	if v, ok := f["--format"]; ok {
		format = v
	}
	if format != "table" && format != "json" {
		return &nativetest.UsageError{Msg: fmt.Sprintf("invalid value '%s' for '--format <FORMAT>'\n  [possible values: table, json]", format), Usage: "wezterm cli list [OPTIONS]"}
	}
	st, err := connect(sock)
	if err != nil {
		return err
	}
	s, err := nativetest.Load(st)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	entries := []listEntry{}
	for _, p := range s.Panes {
		entries = append(entries, listEntry{
			WindowID: p.WindowID, TabID: p.TabID, PaneID: p.ID, Workspace: p.Workspace,
			Size:  map[string]int{"rows": p.Rows, "cols": p.Cols, "pixel_width": p.Cols * 8, "pixel_height": p.Rows * 16, "dpi": 96},
			Title: p.Title, Cwd: "file://" + host + p.Cwd, Shape: "Default", Vis: "Visible",
			TabTitle: p.TabName, WinTitle: p.Title, TTYName: ttyName(p),
		})
	}
	if format == "json" {
		b, _ := json.MarshalIndent(entries, "", "  ")
		fmt.Println(string(b))
		return nil
	}
	fmt.Println("WINID TABID PANEID WORKSPACE SIZE  TITLE CWD")
	for _, e := range entries {
		fmt.Printf("%5d %5d %6d %-9s %dx%d %s %s\n", e.WindowID, e.TabID, e.PaneID, e.Workspace, e.Size["cols"], e.Size["rows"], e.Title, e.Cwd)
	}
	return nil
}

var splitFlags = []nativetest.Flag{
	{Names: []string{"--pane-id"}, Value: true}, {Names: []string{"--horizontal"}},
	{Names: []string{"--left"}}, {Names: []string{"--right"}}, {Names: []string{"--top"}}, {Names: []string{"--bottom"}},
	{Names: []string{"--top-level"}}, {Names: []string{"--cells"}, Value: true}, {Names: []string{"--percent"}, Value: true},
	{Names: []string{"--cwd"}, Value: true}, {Names: []string{"--move-pane-id"}, Value: true},
}

func splitPane(sock string, args []string) error {
	const usage = "wezterm cli split-pane [OPTIONS] [PROG]..."
	f, argv, err := nativetest.ParseArgs(args, splitFlags, true, usage)
	if err != nil {
		return err
	}
	dir := "bottom"
	n := 0
	for _, d := range []string{"--horizontal", "--left", "--right", "--top", "--bottom"} {
		if _, ok := f[d]; ok {
			n++
			dir = strings.TrimPrefix(d, "--")
		}
	}
	if n > 1 {
		return &nativetest.UsageError{Msg: "the direction arguments cannot be used with one another", Usage: usage}
	}
	if dir == "horizontal" {
		dir = "right"
	}
	pct := 0
	if v, ok := f["--percent"]; ok {
		if _, cells := f["--cells"]; cells {
			return &nativetest.UsageError{Msg: "the argument '--percent <PERCENT>' cannot be used with '--cells <CELLS>'", Usage: usage}
		}
		if pct, err = strconv.Atoi(v); err != nil || pct < 0 || pct > 255 {
			return &nativetest.UsageError{Msg: fmt.Sprintf("invalid value '%s' for '--percent <PERCENT>'", v), Usage: usage}
		}
	}
	if _, ok := f["--move-pane-id"]; ok {
		return errors.New("fake wezterm: --move-pane-id is not modelled")
	}
	from, err := paneID(f)
	if err != nil {
		return err
	}
	st, err := connect(sock)
	if err != nil {
		return err
	}
	var id int
	err = nativetest.Update(st, func(s *nativetest.State) error {
		parent, ok := s.Pane(from)
		if !ok {
			return notFound(from)
		}
		share := pct
		if share == 0 {
			share = 50
		}
		p := nativetest.Pane{WindowID: parent.WindowID, TabID: parent.TabID, TabName: parent.TabName, Workspace: parent.Workspace,
			Rows: parent.Rows, Cols: parent.Cols, Cwd: parent.Cwd, SplitFrom: from, Direction: dir, Percent: pct}
		if dir == "left" || dir == "right" {
			p.Cols = max((parent.Cols-1)*share/100, 1)
			parent.Cols = max(parent.Cols-1-p.Cols, 1)
		} else {
			p.Rows = max((parent.Rows-1)*share/100, 1)
			parent.Rows = max(parent.Rows-1-p.Rows, 1)
		}
		if c, ok := f["--cwd"]; ok {
			p.Cwd = c
		}
		id = add(s, p, argv)
		return nil
	})
	if err != nil {
		return err
	}
	if err := nativetest.StartPane(st, id); err != nil {
		return fmt.Errorf("Error: %v", err)
	}
	fmt.Println(id)
	return nil
}

func spawn(sock string, args []string) error {
	const usage = "wezterm cli spawn [OPTIONS] [PROG]..."
	f, argv, err := nativetest.ParseArgs(args, []nativetest.Flag{
		{Names: []string{"--pane-id"}, Value: true}, {Names: []string{"--domain-name"}, Value: true},
		{Names: []string{"--window-id"}, Value: true}, {Names: []string{"--new-window"}},
		{Names: []string{"--cwd"}, Value: true}, {Names: []string{"--workspace"}, Value: true},
	}, true, usage)
	if err != nil {
		return err
	}
	from, err := paneID(f)
	if err != nil {
		return err
	}
	st, err := connect(sock)
	if err != nil {
		return err
	}
	var id int
	err = nativetest.Update(st, func(s *nativetest.State) error {
		cur, ok := s.Pane(from)
		if !ok {
			return notFound(from)
		}
		p := nativetest.Pane{WindowID: cur.WindowID, TabID: s.NextTab, Workspace: cur.Workspace,
			Rows: windowRows, Cols: windowCols, Cwd: cur.Cwd, SplitFrom: -1}
		s.NextTab++
		if _, ok := f["--new-window"]; ok {
			p.WindowID = s.NextWindow
			s.NextWindow++
		}
		if c, ok := f["--cwd"]; ok {
			p.Cwd = c
		}
		id = add(s, p, argv)
		return nil
	})
	if err != nil {
		return err
	}
	if err := nativetest.StartPane(st, id); err != nil {
		return fmt.Errorf("Error: %v", err)
	}
	fmt.Println(id)
	return nil
}

func killPane(sock string, args []string) error {
	f, _, err := nativetest.ParseArgs(args, []nativetest.Flag{{Names: []string{"--pane-id"}, Value: true}}, false, "wezterm cli kill-pane [OPTIONS]")
	if err != nil {
		return err
	}
	id, err := paneID(f)
	if err != nil {
		return err
	}
	st, err := connect(sock)
	if err != nil {
		return err
	}
	var gone nativetest.Pane
	err = nativetest.Update(st, func(s *nativetest.State) error {
		p, ok := s.Pane(id)
		if !ok {
			return notFound(id)
		}
		gone = *p
		s.Remove(id)
		return nil
	})
	if err != nil {
		return err
	}
	nativetest.KillHost(gone)
	return nil
}

func setTabTitle(sock string, args []string) error {
	const usage = "wezterm cli set-tab-title [OPTIONS] <TITLE>"
	f, pos, err := nativetest.ParseArgs(args, []nativetest.Flag{
		{Names: []string{"--tab-id"}, Value: true}, {Names: []string{"--pane-id"}, Value: true},
	}, false, usage)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &nativetest.UsageError{Msg: "the following required arguments were not provided:\n  <TITLE>", Usage: usage}
	}
	id, err := paneID(f)
	if err != nil {
		return err
	}
	st, err := connect(sock)
	if err != nil {
		return err
	}
	return nativetest.Update(st, func(s *nativetest.State) error {
		p, ok := s.Pane(id)
		if !ok {
			return notFound(id)
		}
		tab := p.TabID
		for i := range s.Panes {
			if s.Panes[i].TabID == tab {
				s.Panes[i].TabName = pos[0]
			}
		}
		return nil
	})
}
