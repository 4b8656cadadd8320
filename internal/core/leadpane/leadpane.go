// Package leadpane keeps the record of where Claude's own lead runs, for
// a lead started with 'paneteam claude --answer-from-web': the terminal's
// own address of the pane the person started it in (tmux's socket and
// pane id; kitty's, WezTerm's, Zellij's or iTerm2's id of it). That pane
// is the person's, not one paneteam made: without this record, asked for
// at start, nothing of paneteam reads or types into it.
//
// The record lives in paneteam's own state folder (0600 files in a 0700
// folder), never in the team folder that teammates and other hosts write,
// under the lead's process id: 'paneteam claude' becomes Claude Code with
// exec, so the pid and start time recorded are Claude's lead's, the ones
// Claude Code writes as the team's leadProcess. A record is believed only
// while that very process (pid and start time) runs.
package leadpane

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/sys/private"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/tmux"
)

// Terminals a record can name.
const (
	TerminalTmux = "tmux"
	// The native terminals are named as package native names them:
	// "kitty", "wezterm", "zellij", "iterm2", "ghostty".
)

// Record is where one lead runs.
type Record struct {
	PID      int    `json:"pid"`
	PIDStart string `json:"pidStart"`
	// Terminal is the terminal whose address is below: "tmux" when the
	// lead started inside tmux, else the native terminal the environment
	// named (kitty, wezterm, zellij, iterm2), "" when none.
	Terminal string `json:"terminal"`
	// TmuxSocket and TmuxPane: the server (its socket path, from $TMUX)
	// and the pane ($TMUX_PANE) of a lead inside tmux.
	TmuxSocket string `json:"tmuxSocket,omitempty"`
	TmuxPane   string `json:"tmuxPane,omitempty"`
	// The native terminals' own ids of the lead's pane, from the
	// variables each sets in the shells it starts.
	KittyListenOn string `json:"kittyListenOn,omitempty"`
	KittyWindow   string `json:"kittyWindow,omitempty"`
	WezTermPane   string `json:"weztermPane,omitempty"`
	WezTermSocket string `json:"weztermSocket,omitempty"` // WEZTERM_UNIX_SOCKET: which WezTerm
	ZellijSession string `json:"zellijSession,omitempty"`
	ZellijPane    string `json:"zellijPane,omitempty"`
	ZellijSockets string `json:"zellijSocketDir,omitempty"` // ZELLIJ_SOCKET_DIR: where the session is
	ITermSession  string `json:"itermSession,omitempty"`
	Started       string `json:"started"` // RFC 3339, UTC
}

// Folder is the records' folder in paneteam's state folder.
func Folder(state string) string { return filepath.Join(state, "leadpanes") }

func path(state string, pid int) string {
	return filepath.Join(Folder(state), strconv.Itoa(pid)+".json")
}

// Of is the record of the lead process pid, started in the terminal
// getenv describes (the lead's own environment).
func Of(getenv func(string) string, pid int) (Record, error) {
	start, err := proc.StartTime(pid)
	if err != nil {
		return Record{}, fmt.Errorf("record the lead's pane: %w", err)
	}
	r := Record{PID: pid, PIDStart: start, Started: time.Now().UTC().Format(time.RFC3339Nano)}
	if v, pane := getenv("TMUX"), getenv("TMUX_PANE"); v != "" && pane != "" {
		srv, err := tmux.FromTMUX(v)
		if err != nil {
			return Record{}, fmt.Errorf("record the lead's pane: %w", err)
		}
		r.Terminal, r.TmuxSocket, r.TmuxPane = TerminalTmux, srv.Socket, pane
		return r, nil
	}
	r.Terminal = native.Detect(getenv)
	switch r.Terminal {
	case "kitty":
		r.KittyListenOn, r.KittyWindow = getenv("KITTY_LISTEN_ON"), getenv("KITTY_WINDOW_ID")
	case "wezterm":
		r.WezTermPane, r.WezTermSocket = getenv("WEZTERM_PANE"), getenv("WEZTERM_UNIX_SOCKET")
	case "zellij":
		r.ZellijSession, r.ZellijPane = getenv("ZELLIJ_SESSION_NAME"), getenv("ZELLIJ_PANE_ID")
		r.ZellijSockets = getenv("ZELLIJ_SOCKET_DIR")
	case "iterm2":
		r.ITermSession = getenv("ITERM_SESSION_ID")
	}
	return r, nil
}

// Write keeps r in the state folder, replacing an earlier lead's of the
// same pid, and removes the records of leads that have ended.
func Write(state string, r Record) error {
	dir := Folder(state)
	if err := os.MkdirAll(dir, lockfile.DirPerm); err != nil {
		return fmt.Errorf("make the lead pane records' folder: %w", err)
	}
	if err := private.Dir(dir); err != nil {
		return fmt.Errorf("lead pane records' folder %s: %w", dir, err)
	}
	sweep(dir)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := lockfile.WriteAtomic(path(state, r.PID), append(b, '\n')); err != nil {
		return fmt.Errorf("record the lead's pane: %w", err)
	}
	return nil
}

// sweep removes the records of leads that no longer run.
func sweep(dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".json"))
		if err != nil {
			continue
		}
		if r, err := readFile(f); err == nil && !proc.Alive(pid, r.PIDStart) {
			os.Remove(f)
		}
	}
}

// ErrNone: no record of a running lead of that pid, so its pane is not
// paneteam's to read or type into.
var ErrNone = errors.New("no record of the lead's pane")

// Read returns the record of the lead process pid, only while that very
// process runs: pid with the start time recorded, and procStart when
// the caller knows it (the leadProcess Claude Code wrote). A record of
// another user's, or one others could change, is not believed.
func Read(state string, pid int, procStart string) (*Record, error) {
	dir := Folder(state)
	if err := private.Dir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNone
		}
		return nil, fmt.Errorf("lead pane records' folder %s: %w", dir, err)
	}
	r, err := readFile(path(state, pid))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNone
	}
	if err != nil {
		return nil, err
	}
	if r.PID != pid || (procStart != "" && procStart != r.PIDStart) || !proc.Alive(pid, r.PIDStart) {
		return nil, ErrNone
	}
	return r, nil
}

func readFile(p string) (*Record, error) {
	f, err := safefs.OpenFile(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := private.Check(st); err != nil {
		return nil, fmt.Errorf("lead pane record %s: %w: not believed; remove it", p, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("lead pane record %s: %w", p, err)
	}
	return &r, nil
}
