package shim

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/sys/flockwait"
	"github.com/paneteam/paneteam/lockfile"
)

// A lead that runs in kitty, WezTerm, Zellij or iTerm2 (outside tmux) is
// given a tmux server that is the shim itself: $TMUX names a socket in a
// folder of paneteam's that no tmux listens on, Claude Code believes it
// runs inside tmux and addresses every call to that socket, and the shim
// carries the calls out in the terminal through its native driver. The
// folder holds the server's state (panes.json), one gate file per pane,
// and the lock that serialises pane creation.
//
// A pane starts running paneteam's gate ('paneteam shim-gate FILE'),
// Claude's "cat": it prints nothing and waits for FILE.run, which the
// respawn-pane that follows writes (0600) with the command line Claude
// gave and the lead's environment; the gate then becomes /bin/sh -c LINE
// in that environment, with the terminal's variables of its own pane and
// without the shim's, as a private tmux server's pane would get it.

// EnvTerminal names the terminal of a virtual server ("kitty", ...); set
// by 'paneteam claude' together with EnvState.
const (
	EnvTerminal = "PANETEAM_SHIM_TERMINAL"
	// EnvState is the virtual server's folder.
	EnvState = "PANETEAM_SHIM_STATE"
)

// VirtualState is a virtual server's panes.json.
type VirtualState struct {
	// Terminal is the native terminal's name.
	Terminal string `json:"terminal"`
	// Env is the terminal's variables as the lead's start saw them
	// (the driver's address: KITTY_LISTEN_ON, WEZTERM_PANE, ...).
	Env map[string]string `json:"env"`
	// Lead is "<pid>:<start time>" of the lead process.
	Lead string `json:"lead"`
	// Exe is the paneteam binary the panes' gates run.
	Exe string `json:"exe"`
	// Programs are the programs the terminal's driver runs (kitty,
	// wezterm, zellij, it2), by name, as the lead's PATH found them: a
	// later call from a PATH without them ('cleanup --orphans' from cron)
	// still reaches the terminal.
	Programs map[string]string `json:"programs,omitempty"`
	// Log is the shim's log, where a gate that fails says why (its pane
	// closes with it).
	Log string `json:"log,omitempty"`
	// Next is the number of the next pane id (%Next).
	Next  int           `json:"next"`
	Panes []VirtualPane `json:"panes"`
}

// VirtualPane is one pane the shim made.
type VirtualPane struct {
	ID     string        `json:"id"`     // the tmux id Claude knows it by: %N
	Handle native.Handle `json:"handle"` // the terminal's own id
	Gate   string        `json:"gate"`   // the gate's file
	Title  string        `json:"title,omitempty"`
	Agent  string        `json:"agent,omitempty"` // name@team once respawned
	Tab    bool          `json:"tab,omitempty"`   // in a tab of its own
	// Width and Height are the pane's notional size, for the layout
	// engine: the terminal is taken as 200x50 cells, split as the
	// layout asked.
	Width  int `json:"width"`
	Height int `json:"height"`
}

const (
	virtualStateFile = "panes.json"
	virtualLockFile  = "lock"
	virtualSocket    = "tmux"
	// The lead's notional size, for the layout engine.
	virtualWidth, virtualHeight = 200, 50
)

// NewVirtual makes the folder of a virtual server for a lead about to
// start, under dir, with the state st (its Lead is the lead's "<pid>:<start
// time>"), and returns the value of $TMUX to give the lead.
func NewVirtual(dir string, st VirtualState) (tmuxVar string, err error) {
	if err := os.MkdirAll(filepath.Join(dir, "gates"), 0o700); err != nil {
		return "", fmt.Errorf("make the folder of paneteam's tmux for %s: %w", st.Terminal, err)
	}
	st.Next, st.Panes = 1, nil
	b, _ := json.MarshalIndent(st, "", "  ")
	if err := lockfile.WriteAtomic(filepath.Join(dir, virtualStateFile), b); err != nil {
		return "", fmt.Errorf("write the state of paneteam's tmux: %w", err)
	}
	pid, _, _ := strings.Cut(st.Lead, ":")
	return filepath.Join(dir, virtualSocket) + "," + pid + ",0", nil
}

// ReadVirtual reads the state of the virtual server in dir.
func ReadVirtual(dir string) (VirtualState, error) {
	var st VirtualState
	b, err := os.ReadFile(filepath.Join(dir, virtualStateFile))
	if err != nil {
		return st, fmt.Errorf("read the state of paneteam's tmux: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("the state of paneteam's tmux %s does not parse: %w", dir, err)
	}
	return st, nil
}

// virtual is the shim serving a call as a virtual server.
type virtual struct {
	s    *Shim
	dir  string
	st   VirtualState
	term native.Terminal
	// unlock releases the server's lock the call holds; once only.
	unlock func()
}

// lock serialises the virtual server's calls.
func (v *virtual) lock(ctx context.Context) (func(), error) {
	fl := flock.New(filepath.Join(v.dir, virtualLockFile), flock.SetPermissions(0o600))
	if err := flockwait.Lock(ctx, fl); err != nil {
		return nil, fmt.Errorf("lock paneteam's tmux %s: %w", v.dir, err)
	}
	return func() { fl.Unlock() }, nil
}

// write puts the state back.
func (v *virtual) write() error {
	b, _ := json.MarshalIndent(v.st, "", "  ")
	if err := lockfile.WriteAtomic(filepath.Join(v.dir, virtualStateFile), b); err != nil {
		return fmt.Errorf("write the state of paneteam's tmux: %w", err)
	}
	return nil
}

// save writes the state back and ends the call: with what out says, or
// with the write's failure.
func (v *virtual) save(out string) int {
	if err := v.write(); err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	return v.s.finish(out, "", 0)
}

// pane is the live pane named id, or nil.
func (v *virtual) pane(id string) *VirtualPane {
	for i := range v.st.Panes {
		if v.st.Panes[i].ID == id {
			return &v.st.Panes[i]
		}
	}
	return nil
}

// paneOr succeeds for the lead's pane and the shim's panes, and fails as
// tmux does for any other target.
func (v *virtual) paneOr(target string) int {
	if target == "%0" || target == "@0" || v.pane(target) != nil {
		return v.s.finish("", "", 0)
	}
	return v.s.finish("", fmt.Sprintf("can't find pane: %s\n", target), 1)
}

// prune drops panes whose gate (or the command it became) has ended:
// the person closed the pane, or its teammate exited.
func (v *virtual) prune() bool {
	kept := v.st.Panes[:0]
	changed := false
	for _, p := range v.st.Panes {
		if gateAlive(p.Gate) {
			kept = append(kept, p)
			continue
		}
		changed = true
		removeGate(p.Gate)
	}
	v.st.Panes = kept
	return changed
}
