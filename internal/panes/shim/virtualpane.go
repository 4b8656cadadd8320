package shim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/lockfile"
)

// window is the lead's window as the layout engine sees it.
func (v *virtual) window() layout.Window {
	w := layout.Window{Panes: []layout.Pane{{ID: "%0", Role: layout.Lead, Width: virtualWidth, Height: virtualHeight}}}
	for _, p := range v.st.Panes {
		if !p.Tab {
			w.Panes = append(w.Panes, layout.Pane{ID: p.ID, Role: layout.Teammate, Width: p.Width, Height: p.Height})
		}
	}
	// The lead's notional size is what the teammates beside it leave.
	for _, p := range w.Panes[1:] {
		if p.Height == virtualHeight {
			w.Panes[0].Width -= p.Width
		}
	}
	return w
}

// driver is the terminal's native driver, addressed as the lead's start
// saw it.
func (v *virtual) driver() (native.Terminal, error) {
	if v.term != nil {
		return v.term, nil
	}
	// The terminal's variables are those recorded, and only those: a
	// caller in another instance of the terminal (or in none, cron)
	// must reach the lead's, never its own.
	getenv := func(k string) string {
		if IsTerminalVar(k) {
			return v.st.Env[k]
		}
		return v.s.Getenv(k)
	}
	t, err := native.New(v.st.Terminal, native.Env{Getenv: getenv, LookPath: v.lookPath, Exe: v.st.Exe, Dir: v.dir})
	if err != nil {
		return nil, err
	}
	v.term = t
	return t, nil
}

// lookPath finds a program of the driver's: where the lead found it,
// while it is there, else on the caller's PATH.
func (v *virtual) lookPath(name string) (string, error) {
	if p := v.st.Programs[name]; p != "" {
		if program.Executable(p) {
			return p, nil
		}
	}
	return program.Find(name, v.s.Getenv("PATH"))
}

// split opens a teammate's pane in the terminal where paneteam's layout
// says, running the gate, and prints its id.
func (v *virtual) split(ctx context.Context, c Call) int {
	v.prune()
	t, err := v.driver()
	if err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	id := "%" + strconv.Itoa(v.st.Next)
	gate := filepath.Join(v.dir, "gates", strconv.Itoa(v.st.Next))
	if err := lockfile.WriteAtomic(gate+".new", nil); err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	np, plan, err := v.open(ctx, t, id, gate)
	if err != nil {
		removeGate(gate)
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): open a pane in %s: %v\n", v.st.Terminal, err), 1)
	}
	v.st.Next++
	v.st.Panes = append(v.st.Panes, np)
	if err := v.write(); err != nil {
		v.closePane(ctx, np)
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	if plan.Relayout.Layout != "" {
		v.arrangeWith(ctx, plan.Relayout)
	}
	return v.s.finish(v.printed(c, id), "", 0)
}

// open opens the pane running gate where the layout places it. A split
// refused because the pane to split beside is gone from the terminal
// (the person closed it, and its program has not ended yet, so prune
// kept it) drops that pane and asks the layout again, which places the
// new pane beside a live one, else beside the lead.
func (v *virtual) open(ctx context.Context, t native.Terminal, id, gate string) (virtualtmux.Pane, layout.Plan, error) {
	for {
		win := v.window()
		plan, err := layout.Next(v.s.policy, win)
		if err != nil {
			return virtualtmux.Pane{}, plan, err
		}
		np := virtualtmux.Pane{ID: id, Gate: gate, Tab: plan.OwnWindow, Width: virtualWidth, Height: virtualHeight}
		place := native.Place{OwnTab: plan.OwnWindow}
		target := v.pane(plan.Split.Target)
		if !plan.OwnWindow {
			place.Horizontal, place.Percent = plan.Split.Horizontal, plan.Split.Percent
			if target != nil {
				place.Beside = native.Handle(target.Handle)
			}
			np.Width, np.Height, _, _ = layout.Carve(win, plan.Split)
		}
		h, err := t.Open(ctx, native.Open{Argv: []string{v.st.Exe, GateCommand, gate}, Place: place})
		if err == nil {
			np.Handle = string(h)
			if target != nil && !plan.OwnWindow {
				// The lead's size is derived from its teammates'.
				_, _, target.Width, target.Height = layout.Carve(win, plan.Split)
			}
			return np, plan, nil
		}
		if plan.OwnWindow || target == nil || !v.gone(ctx, t, native.Handle(target.Handle)) {
			return virtualtmux.Pane{}, plan, err
		}
		v.drop(*target)
	}
}

// gone reports whether the terminal no longer lists pane h (false when
// it cannot say).
func (v *virtual) gone(ctx context.Context, t native.Terminal, h native.Handle) bool {
	hs, err := t.List(ctx)
	return err == nil && !slices.Contains(hs, h)
}

// drop forgets a pane the terminal no longer has and ends what still
// runs in it, as a pane's closing does in tmux.
func (v *virtual) drop(p virtualtmux.Pane) {
	v.st.Panes = slices.DeleteFunc(v.st.Panes, func(q virtualtmux.Pane) bool { return q.ID == p.ID })
	endGate(p.Gate)
	removeGate(p.Gate)
}

// title records pane p's name and gives it to the pane in the terminal,
// where the terminal can name a pane (native.Titler), as tmux titles a
// pane. The name is Claude's (a teammate's name the lead's model chose):
// the terminal shows it made visible (visible.Line), never a control
// character it would act on or hide. The name is cosmetic: a terminal
// that refuses it is logged, and the call succeeds.
func (v *virtual) title(ctx context.Context, p virtualtmux.Pane) int {
	if err := v.write(); err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	t, err := v.driver()
	if err == nil {
		if tt, ok := t.(native.Titler); ok {
			err = tt.SetTitle(ctx, native.Handle(p.Handle), visible.Line(p.Title), p.Tab)
		}
	}
	if err != nil && v.s.Getenv(EnvLog) != "" {
		appendLog(v.s.Getenv(EnvLog), logEntry{
			Time: time.Now().UTC().Format(time.RFC3339Nano), PID: os.Getpid(), PPID: v.s.PPID,
			Argv: v.s.call.Argv, Error: fmt.Sprintf("name pane %s in %s: %v", p.ID, v.st.Terminal, err),
		})
	}
	return v.s.finish("", "", 0)
}

// printed is what split-window prints: nothing without -P, else -F's
// format.
func (v *virtual) printed(c Call, id string) string {
	if !c.Has('P') {
		return ""
	}
	f := "#{session_name}:#{window_index}.#{pane_index}"
	if c.Has('F') {
		f = c.Flag('F')
	}
	return expand(f, v.values(id)) + "\n"
}

// arrange answers select-layout: a terminal that can arrange its panes
// by a layout does so; the others keep the splits they were made with.
func (v *virtual) arrange(ctx context.Context) int {
	v.arrangeWith(ctx, layout.After(v.s.policy, v.window()))
	return v.s.finish("", "", 0)
}

func (v *virtual) arrangeWith(ctx context.Context, rl layout.Relayout) {
	if rl.Layout == "" {
		return
	}
	t, err := v.driver()
	if err != nil {
		return
	}
	if a, ok := t.(native.Arranger); ok {
		a.Arrange(ctx, string(rl.Layout), rl.LeadPercent)
	}
}

// respawn hands the teammate's command to the pane's gate, which becomes
// it: FILE.run, an exec file of native's (0600, checked by the gate
// before it runs anything), moved into place whole.
func (v *virtual) respawn(c Call) int {
	p := v.pane(c.Flag('t'))
	if p == nil || !virtualtmux.GateAlive(p.Gate) {
		return v.s.finish("", fmt.Sprintf("can't find pane: %s\n", c.Flag('t')), 1)
	}
	argv, agent := teammateCommand(c.Args)
	if err := writeGateRun(p.Gate, native.Open{Argv: argv, Env: v.s.teammateEnv()}); err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): hand the command to pane %s: %v\n", p.ID, err), 1)
	}
	p.Agent = agent
	return v.save("")
}

// kill ends a pane's program (its whole process group, as tmux's hang-up
// does) and closes the pane in the terminal. The pane leaves the state
// under the lock; the hang-up, which may wait for a teammate to exit
// (gateHangUp), and the close are done without it, so that the kill-pane
// Claude's lead sends for every teammate at its exit run side by side.
func (v *virtual) kill(ctx context.Context, c Call) int {
	p := v.pane(c.Flag('t'))
	if p == nil {
		return v.s.finish("", fmt.Sprintf("can't find pane: %s\n", c.Flag('t')), 1)
	}
	gone := *p
	v.st.Panes = slices.DeleteFunc(v.st.Panes, func(q virtualtmux.Pane) bool { return q.ID == gone.ID })
	if err := v.write(); err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	v.unlock()
	v.closePane(ctx, gone)
	if !gone.Tab {
		v.relayout(ctx)
	}
	return v.s.finish("", "", 0)
}

// relayout arranges the lead's window again after a pane left it, unless
// no teammate is left beside the lead (the lead's exit: nothing to
// arrange).
func (v *virtual) relayout(ctx context.Context) {
	unlock, err := v.lock(ctx)
	if err != nil {
		return
	}
	defer unlock()
	st, err := virtualtmux.Read(v.dir)
	if err != nil {
		return
	}
	v.st = st
	if len(v.window().Panes) > 1 {
		v.arrangeWith(ctx, layout.After(v.s.policy, v.window()))
	}
}

// closePane ends a pane's program and closes the pane. A terminal that
// has ended (its last window closed with the program) holds no pane: a
// Close it cannot answer, followed by a listing it cannot answer either,
// is success.
func (v *virtual) closePane(ctx context.Context, p virtualtmux.Pane) error {
	endGate(p.Gate)
	t, err := v.driver()
	if err == nil {
		if err = t.Close(ctx, native.Handle(p.Handle)); err != nil {
			if hs, lerr := t.List(ctx); lerr != nil || !slices.Contains(hs, native.Handle(p.Handle)) {
				err = nil
			}
		}
	}
	removeGate(p.Gate)
	return err
}
