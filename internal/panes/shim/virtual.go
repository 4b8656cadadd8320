package shim

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/flockwait"
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

const (
	virtualLockFile = "lock"
	// The lead's notional size, for the layout engine.
	virtualWidth, virtualHeight = 200, 50
)

// virtual is the shim serving a call as a virtual server.
type virtual struct {
	s    *Shim
	dir  string
	st   virtualtmux.State
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
	return virtualtmux.Write(v.dir, v.st)
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
func (v *virtual) pane(id string) *virtualtmux.Pane {
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
		if virtualtmux.GateAlive(p.Gate) {
			kept = append(kept, p)
			continue
		}
		changed = true
		removeGate(p.Gate)
	}
	v.st.Panes = kept
	return changed
}
