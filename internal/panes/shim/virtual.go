package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/sys/flockwait"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/layout"
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

// inVirtual reports whether this shim serves a virtual server.
func (s *Shim) inVirtual() bool {
	return s.Getenv(EnvTerminal) != "" && s.Getenv(EnvState) != "" && s.Getenv(EnvDir) != ""
}

// virtualAddressed reports whether c is for the virtual server: sent to
// its socket, or sent with no server named by a process whose $TMUX is
// the virtual server (Claude's screen probes).
func (s *Shim) virtualAddressed(c Call) bool {
	sock := filepath.Join(s.Getenv(EnvState), virtualSocket)
	if c.Socket != "" || c.Name != "" {
		return c.Socket == sock
	}
	if c.Version {
		return false
	}
	first, _, _ := strings.Cut(s.Getenv("TMUX"), ",")
	return first == sock && isProbe(c)
}

// isProbe reports whether c is one of the screen probes every Claude
// process makes of the tmux it runs in.
func isProbe(c Call) bool {
	switch c.Cmd {
	case "show-options":
		return c.Has('g') && c.Has('v') && len(c.Args) == 1
	case "display-message":
		return c.Has('p') && len(c.Args) == 1
	}
	return false
}

// serveVirtual answers c as the virtual server.
func (s *Shim) serveVirtual(ctx context.Context, c Call) int {
	v := &virtual{s: s, dir: s.Getenv(EnvState)}
	if c.Socket == "" {
		return v.probe(c) // virtualAddressed let only the probes through
	}
	if why := check(c); why != "" {
		return s.unknown(why)
	}
	unlock, err := v.lock(ctx)
	if err != nil {
		return s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	v.unlock = sync.OnceFunc(unlock)
	defer v.unlock()
	if v.st, err = ReadVirtual(v.dir); err != nil {
		return s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	switch c.Cmd {
	case "display-message":
		return v.display(c)
	case "list-panes":
		return v.listPanes(c)
	case "split-window":
		return v.split(ctx, c)
	case "respawn-pane":
		return v.respawn(c)
	case "kill-pane":
		return v.kill(ctx, c)
	case "select-pane":
		if p := v.pane(c.Flag('t')); p != nil && c.Has('T') {
			p.Title = c.Flag('T')
			return v.save("")
		}
		return v.paneOr(c.Flag('t'))
	case "set-option", "resize-pane":
		// Colours, borders and widths are tmux's drawing; the terminal
		// draws its own.
		return v.paneOr(c.Flag('t'))
	case "select-layout":
		return v.arrange(ctx)
	}
	return s.unknown(fmt.Sprintf("%s is not a call paneteam's tmux for %s answers", c.Cmd, v.st.Terminal))
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

// values are what the virtual server answers for a format's variables.
func (v *virtual) values(pane string) map[string]string {
	return map[string]string{
		"session_name": "paneteam", "window_id": "@0", "window_index": "0", "window_name": "paneteam",
		"pane_id": pane, "pane_index": strings.TrimPrefix(pane, "%"),
		"client_termtype": "", "client_control_mode": "0", "allow-passthrough": "0",
		"focus-events": "0", "pane_top": "0", "pane_left": "0",
		"status": "off", "status-position": "bottom", "window_bigger": "0",
	}
}

// expand fills a tmux format: #{name} by its value ("" for a name the
// virtual server does not know), ## is #.
func expand(format string, vals map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] == '#' && i+1 < len(format) {
			switch format[i+1] {
			case '{':
				if end := strings.IndexByte(format[i:], '}'); end > 0 {
					b.WriteString(vals[format[i+2:i+end]])
					i += end
					continue
				}
			case '#':
				b.WriteByte('#')
				i++
				continue
			}
		}
		b.WriteByte(format[i])
	}
	return b.String()
}

// probe answers a screen probe: focus events are off, and the pane is
// drawn straight to the terminal (no passthrough, no status line).
func (v *virtual) probe(c Call) int {
	if c.Cmd == "show-options" {
		if c.Args[0] == "focus-events" {
			return v.s.finish("off\n", "", 0)
		}
		return v.s.finish("", fmt.Sprintf("invalid option: %s\n", c.Args[0]), 1)
	}
	pane := c.Flag('t')
	if pane == "" {
		pane = v.s.Getenv("TMUX_PANE")
	}
	return v.s.finish(expand(c.Args[0], v.values(pane))+"\n", "", 0)
}

// display answers display-message -p on the server's panes.
func (v *virtual) display(c Call) int {
	pane := c.Flag('t')
	if pane != "%0" && v.pane(pane) == nil {
		return v.s.finish("", fmt.Sprintf("can't find pane: %s\n", pane), 1)
	}
	f := c.Flag('F')
	if len(c.Args) == 1 {
		f = c.Args[0]
	}
	return v.s.finish(expand(f, v.values(pane))+"\n", "", 0)
}

// listPanes lists the lead's window: the lead's pane, then the panes
// split beside it (panes in tabs of their own are in other windows).
func (v *virtual) listPanes(c Call) int {
	if t := c.Flag('t'); t != "@0" && t != "%0" && t != "" && v.pane(t) == nil {
		return v.s.finish("", fmt.Sprintf("can't find window: %s\n", t), 1)
	}
	if v.prune() {
		v.write() // the listing is right either way; the next call prunes again
	}
	f := c.Flag('F')
	if f == "" {
		f = "#{pane_index}: #{pane_id}"
	}
	out := expand(f, v.values("%0")) + "\n"
	for _, p := range v.st.Panes {
		if !p.Tab {
			out += expand(f, v.values(p.ID)) + "\n"
		}
	}
	return v.s.finish(out, "", 0)
}

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
	return exec.LookPath(name)
}

// split opens a teammate's pane in the terminal where paneteam's layout
// says, running the gate, and prints its id.
func (v *virtual) split(ctx context.Context, c Call) int {
	v.prune()
	t, err := v.driver()
	if err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	win := v.window()
	plan, err := layout.Next(v.s.policy, win)
	if err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	id := "%" + strconv.Itoa(v.st.Next)
	gate := filepath.Join(v.dir, "gates", strconv.Itoa(v.st.Next))
	np := VirtualPane{ID: id, Gate: gate, Tab: plan.OwnWindow, Width: virtualWidth, Height: virtualHeight}
	place := native.Place{OwnTab: plan.OwnWindow}
	if !plan.OwnWindow {
		place.Horizontal, place.Percent = plan.Split.Horizontal, plan.Split.Percent
		if target := v.pane(plan.Split.Target); target != nil {
			place.Beside = target.Handle
		}
		var lw, lh int
		np.Width, np.Height, lw, lh = layout.Carve(win, plan.Split)
		if target := v.pane(plan.Split.Target); target != nil {
			// The lead's size is derived from its teammates'.
			target.Width, target.Height = lw, lh
		}
	}
	if err := lockfile.WriteAtomic(gate+".new", nil); err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	h, err := t.Open(ctx, native.Open{Argv: []string{v.st.Exe, GateCommand, gate}, Place: place})
	if err != nil {
		removeGate(gate)
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): open a pane in %s: %v\n", v.st.Terminal, err), 1)
	}
	np.Handle = h
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
	if p == nil || !gateAlive(p.Gate) {
		return v.s.finish("", fmt.Sprintf("can't find pane: %s\n", c.Flag('t')), 1)
	}
	argv, agent := teammateCommand(c.Args)
	if err := writeGateRun(p.Gate, native.Open{Argv: argv, Env: v.s.teammateEnv()}); err != nil {
		return v.s.finish("", fmt.Sprintf("paneteam (run as tmux): hand the command to pane %s: %v\n", p.ID, err), 1)
	}
	p.Agent = agent
	return v.save("")
}

// teammateEnv is the environment a teammate gets from its lead, as the
// private tmux server this replaces would have given it: the lead's own
// (its API key, the PATH its shell set up), less the shim's variables and
// folder, $TMUX, and the terminal's variables, which the gate takes from
// its own pane (KITTY_WINDOW_ID, WEZTERM_PANE: the teammate's pane, not
// the lead's).
func (s *Shim) teammateEnv() []string {
	var out []string
	for _, kv := range s.realEnv() {
		if k, _, _ := strings.Cut(kv, "="); k != "" && !IsTerminalVar(k) {
			out = append(out, kv)
		}
	}
	return out
}

// writeGateRun writes o as the exec file FILE.run of the gate file.
func writeGateRun(file string, o native.Open) error {
	tmp, err := native.WriteExecFile(filepath.Dir(file), o)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, file+".run"); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("hand the command to the pane's gate: %w", err)
	}
	return nil
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
	v.st.Panes = slices.DeleteFunc(v.st.Panes, func(q VirtualPane) bool { return q.ID == gone.ID })
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
	st, err := ReadVirtual(v.dir)
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
func (v *virtual) closePane(ctx context.Context, p VirtualPane) error {
	endGate(p.Gate)
	t, err := v.driver()
	if err == nil {
		if err = t.Close(ctx, p.Handle); err != nil {
			if hs, lerr := t.List(ctx); lerr != nil || !slices.Contains(hs, p.Handle) {
				err = nil
			}
		}
	}
	removeGate(p.Gate)
	return err
}

// gateStartLimit is how long a pane's gate may take to start before the
// pane is taken for one the terminal never opened.
const gateStartLimit = 30 * time.Second

// The gate's own files: FILE.pid holds "<pid>:<start time>" of the gate
// (the process that becomes the teammate), FILE.run the command.

// gateAlive reports whether the gate of file, or what it became, runs.
// A gate that has not written its pid yet counts as alive.
func gateAlive(file string) bool {
	b, err := os.ReadFile(file + ".pid")
	if errors.Is(err, fs.ErrNotExist) {
		st, err := os.Stat(file + ".new")
		return err == nil && time.Since(st.ModTime()) < gateStartLimit
	}
	pid, start, ok := procTag(string(b))
	return ok && proc.Alive(pid, start)
}

// endGate hangs up the gate's process group (the teammate and what it
// started), then kills what is left after a grace period.
func endGate(file string) {
	b, err := os.ReadFile(file + ".pid")
	if err != nil {
		return
	}
	pid, start, ok := procTag(string(b))
	if !ok || !proc.Alive(pid, start) {
		return // gone, or the pid is someone else's now
	}
	syscall.Kill(-pid, syscall.SIGHUP)
	syscall.Kill(pid, syscall.SIGHUP)
	deadline := time.Now().Add(gateHangUp)
	for time.Now().Before(deadline) {
		if !proc.Alive(pid, start) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	syscall.Kill(pid, syscall.SIGKILL)
}

// gateHangUp is how long a hung-up teammate has to exit before it is
// killed.
var gateHangUp = 2 * time.Second

// procTag reads a process's "<pid>:<start time>" (the start may be
// empty: only the pid is then checked).
func procTag(tag string) (pid int, start string, ok bool) {
	p, start, _ := strings.Cut(strings.TrimSpace(tag), ":")
	pid, err := strconv.Atoi(p)
	return pid, start, err == nil && pid > 1
}

func removeGate(file string) {
	for _, ext := range []string{"", ".pid", ".run", ".new"} {
		os.Remove(file + ext)
	}
}

// PaneAlive reports whether paneteam's tmux in dir made pane id, and
// whether what runs in it is alive.
func PaneAlive(dir, id string) (found, alive bool) {
	st, err := ReadVirtual(dir)
	if err != nil {
		return false, false
	}
	for _, p := range st.Panes {
		if p.ID == id {
			return true, gateAlive(p.Gate)
		}
	}
	return false, false
}

// SweepVirtual removes, under parent, the folders of paneteam's tmux
// whose lead is gone and which hold no pane: what a lead that closed its
// teammates' panes at its exit leaves. A folder with panes left is
// 'cleanup --orphans” to close.
func SweepVirtual(parent string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		dir := filepath.Join(parent, e.Name())
		st, err := ReadVirtual(dir)
		if err != nil || len(st.Panes) > 0 {
			continue
		}
		if pid, start, ok := procTag(st.Lead); !ok || proc.Alive(pid, start) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// CloseAll closes every pane of the virtual server in dir (its lead is
// gone: 'cleanup --orphans') and removes the folder. It returns the ids
// of the panes it closed.
func CloseAll(ctx context.Context, dir string, getenv func(string) string) ([]string, error) {
	st, err := ReadVirtual(dir)
	if err != nil {
		return nil, err
	}
	s := &Shim{Getenv: getenv}
	v := &virtual{s: s, dir: dir, st: st}
	var ids []string
	var errs []error
	for _, p := range st.Panes {
		if err := v.closePane(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("pane %s (%s %s): %w", p.ID, st.Terminal, p.Handle, err))
			continue
		}
		ids = append(ids, p.ID)
	}
	sort.Strings(ids)
	if len(errs) == 0 {
		os.RemoveAll(dir)
	}
	return ids, errors.Join(errs...)
}
