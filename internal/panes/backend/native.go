package backend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

// The terminals whose own panes paneteam opens for its teammates, through
// their native drivers (internal/panes/native). iTerm2 has its own backend
// (iterm2.go).
var nativeTerminals = []string{team.BackendKitty, team.BackendWezTerm, team.BackendZellij, team.BackendGhostty}

func init() {
	for _, name := range nativeTerminals {
		registry[name] = func(env Env, cfg *team.Config) (Backend, error) { return &nativeBackend{env: env, name: name}, nil }
	}
}

// nativeAddress lists, per terminal, the variables that say which of its
// instances a program runs in and where: what a driver reads, recorded on
// each member (team.TerminalPane.Env) so that a later paneteam run from
// any shell reaches the same terminal.
var nativeAddress = map[string][]string{
	team.BackendKitty:   {"KITTY_LISTEN_ON", "KITTY_WINDOW_ID"},
	team.BackendWezTerm: {"WEZTERM_UNIX_SOCKET", "WEZTERM_PANE"},
	team.BackendZellij:  {"ZELLIJ_SESSION_NAME", "ZELLIJ_SOCKET_DIR"},
	// Ghostty is one application per person, reached by name through
	// AppleScript: nothing tells one instance from another.
	team.BackendGhostty: {"TERM_PROGRAM"},
}

// listNames says whether a List of the terminal through addr can only
// be of the instance addr names, so that it may prune the records kept
// for addr. A terminal whose command line finds an instance of its own
// when a variable is missing (WezTerm without WEZTERM_UNIX_SOCKET looks
// for its GUI, or the caller's variable would be used) may answer, in
// full and with success, for another instance, whose panes are not
// these: every variable of its address must be set. Zellij's List asks
// no Zellij (it checks the programs its driver started, by the files in
// the driver's folder), so the session's socket folder, which Zellij
// leaves unset by default, does not matter to it.
func listNames(name string, addr map[string]string) bool {
	if name == team.BackendZellij {
		return addr["ZELLIJ_SESSION_NAME"] != ""
	}
	for _, k := range nativeAddress[name] {
		if addr[k] == "" {
			return false
		}
	}
	return true
}

// nativeLead is the variable naming the lead's own pane, which paneteam
// splits and never closes (Zellij has none a driver uses: it splits the
// focused pane).
var nativeLead = map[string]string{
	team.BackendKitty:   "KITTY_WINDOW_ID",
	team.BackendWezTerm: "WEZTERM_PANE",
}

// nativeProbeTimeout bounds the probe of a terminal when choosing.
const nativeProbeTimeout = 10 * time.Second

// The notional size of the lead's window, for the layout engine: the
// drivers cannot tell a pane's size, so panes are sized as the layout
// split them (as the shim's virtual tmux does).
const nativeWidth, nativeHeight = 200, 50

// IsNative reports whether backendType names a terminal paneteam opens
// panes in through its native driver.
func IsNative(backendType string) bool { return slices.Contains(nativeTerminals, backendType) }

// nativeBackend opens teammates as panes of the terminal the lead runs in.
type nativeBackend struct {
	env  Env
	name string
}

func (b *nativeBackend) Name() string { return b.name }

// address is the terminal's variables as this process sees them.
func (b *nativeBackend) address() map[string]string {
	out := map[string]string{}
	for _, k := range nativeAddress[b.name] {
		if v := b.env.Getenv(k); v != "" {
			out[k] = v
		}
	}
	return out
}

// driversFolder, in paneteam's state folder, holds the folders the
// terminals' drivers keep their files in (Zellij's: the process of each
// pane, which closing it signals). Never in the team's folder: every
// member writes there, a teammate on another host included, and a file
// planted there would name the process a close ends.
const driversFolder = "drivers"

// driverDir is the private folder a team's driver keeps its files in
// for one terminal instance (Zellij's pane ids are per session; its List
// sees the panes of one folder, one team's).
func driverDir(state string, t team.Team, name string, addr map[string]string) string {
	h := sha256.Sum256([]byte(t.Dir()))
	return filepath.Join(state, driversFolder, name+"-"+addressKey(addr)[:12]+"-"+hex.EncodeToString(h[:6]))
}

// ownDriverDir says whether dir is a driver folder paneteam keeps in its
// state folder (driverDir), for the terminals whose drivers act on the
// files there: the folder of a record written by an older paneteam, in
// the team's folder, is not one.
func ownDriverDir(state, name, dir string) bool {
	if nativeListsAll[name] {
		return true
	}
	parent := filepath.Join(state, driversFolder)
	return filepath.Dir(filepath.Clean(dir)) == parent && strings.HasPrefix(filepath.Base(dir), name+"-")
}

// addressKey is a stable digest of an address.
func addressKey(addr map[string]string) string {
	keys := make([]string, 0, len(addr))
	for k := range addr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x00", k, addr[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// nativeProgram is each terminal's command line program, which its
// driver looks for on PATH.
var nativeProgram = map[string]string{
	team.BackendKitty:   "kitty",
	team.BackendWezTerm: "wezterm",
	team.BackendZellij:  "zellij",
	team.BackendGhostty: "osascript",
}

// driver returns the terminal's driver addressed by addr (the caller's
// own variables fill in the rest: PATH, HOME), keeping records in dir.
// Where the caller's PATH has no such terminal (cron's), the program
// the spawn recorded is used.
func (b *nativeBackend) driver(addr map[string]string, dir string) (native.Terminal, error) {
	bin := ""
	if rd, err := b.recordDir(addr); err == nil {
		bin = recordedBin(rd)
	}
	return newDriver(b.env, b.name, addr, dir, false, bin)
}

// newDriver returns the named terminal's driver addressed by addr; a
// readOnly one changes no file. bin is the terminal's program recorded
// at spawn, for a PATH without it ("" for none).
func newDriver(env Env, name string, addr map[string]string, dir string, readOnly bool, bin string) (native.Terminal, error) {
	getenv := func(k string) string {
		if slices.Contains(nativeAddress[name], k) {
			return addr[k]
		}
		return env.Getenv(k)
	}
	lookPath := func(prog string) (string, error) {
		p, err := env.Find(prog)
		if err != nil && prog == nativeProgram[name] && executable(bin) {
			return bin, nil
		}
		return p, err
	}
	return native.New(name, native.Env{Getenv: getenv, LookPath: lookPath, Exe: env.Exe, Dir: dir, ReadOnly: readOnly})
}

// executable says whether path names an executable file by its full path.
func executable(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// programPath is the terminal's program as this process finds it on
// PATH, by its full path, to record for later callers ("" when none).
func (b *nativeBackend) programPath() string {
	p, err := b.env.Find(nativeProgram[b.name])
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil && executable(abs) {
		return abs
	}
	return ""
}

// ProbeNative checks that the named terminal can be driven from the
// environment; the error says what is off and how to fix it.
func ProbeNative(env Env, name string) error {
	var addr = map[string]string{}
	for _, k := range nativeAddress[name] {
		addr[k] = env.Getenv(k)
	}
	// The probe keeps no records: any folder will do for a driver that
	// needs one.
	t, err := newDriver(env, name, addr, os.TempDir(), false, "")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), nativeProbeTimeout)
	defer cancel()
	return t.Probe(ctx)
}

// window is the lead's window in the terminal as the layout engine sees
// it: the lead and the team's panes still there beside it, sized by
// replaying their splits in the order they joined (a pane closed since
// keeps the space it took: the terminal gives it to a neighbour).
func (b *nativeBackend) window(cfg *team.Config, addr map[string]string, alive map[native.Handle]bool) (layout.Window, map[string]string) {
	type size struct{ w, h int }
	sizes := map[string]*size{"": {nativeWidth, nativeHeight}}
	var ids []string
	handles := map[string]string{}
	for _, m := range b.members(cfg, addr) {
		tp := m.Paneteam.Terminal
		if tp.Tab {
			continue
		}
		sizes[m.TmuxPaneID] = &size{tp.Width, tp.Height}
		if t, ok := sizes[tp.Beside]; ok {
			if tp.Horizontal {
				t.w -= tp.Width
			} else {
				t.h -= tp.Height
			}
		}
		if alive[native.Handle(m.TmuxPaneID)] {
			ids = append(ids, m.TmuxPaneID)
			handles[m.Name] = m.TmuxPaneID
		}
	}
	lead := sizes[""]
	w := layout.Window{Panes: []layout.Pane{{ID: "", Role: layout.Lead, Width: lead.w, Height: lead.h}}}
	for _, id := range ids {
		w.Panes = append(w.Panes, layout.Pane{ID: id, Role: layout.Teammate, Width: sizes[id].w, Height: sizes[id].h})
	}
	return w, handles
}

// members are the team's members paneteam opened in the terminal at addr.
func (b *nativeBackend) members(cfg *team.Config, addr map[string]string) []*team.Member {
	if cfg == nil {
		return nil
	}
	var out []*team.Member
	for i := range cfg.Members {
		m := &cfg.Members[i]
		if m.BackendType == b.name && m.Name != team.LeadName && m.Paneteam != nil && m.Paneteam.Terminal != nil &&
			m.TmuxPaneID != "" && addressKey(m.Paneteam.Terminal.Env) == addressKey(addr) {
			out = append(out, m)
		}
	}
	return out
}

// Spawn opens the teammate's pane where paneteam's layout puts it among
// the team's panes in this terminal, running s.Argv as is. The drivers
// return once the terminal made the pane; a program that fails at once
// closes its pane (the terminals cannot keep a dead pane on request), so
// Spec.StartupCheck does not apply.
func (b *nativeBackend) Spawn(ctx context.Context, s Spec) (Pane, error) {
	addr := b.address()
	state, err := provenance.StateDir(b.env.Getenv)
	if err != nil {
		return Pane{}, err
	}
	dir := driverDir(state, s.Team, b.name, addr)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Pane{}, fmt.Errorf("make paneteam's folder for %s panes: %w", b.name, err)
	}
	t, err := b.driver(addr, dir)
	if err != nil {
		return Pane{}, fmt.Errorf("open a %s pane for %s: %w", b.name, s.Member.Name, err)
	}
	asked := time.Now()
	listed, err := t.List(ctx)
	if err != nil {
		return Pane{}, fmt.Errorf("list %s's panes: %w", b.name, err)
	}
	alive := map[native.Handle]bool{}
	for _, h := range listed {
		alive[h] = true
	}
	win, _ := b.window(s.Config, addr, alive)
	plan, err := layout.Next(s.Layout, win)
	if err != nil {
		return Pane{}, err
	}
	tp := &team.TerminalPane{Env: addr, Dir: dir, Tab: plan.OwnWindow}
	place := native.Place{OwnTab: plan.OwnWindow}
	if !plan.OwnWindow {
		sp := plan.Split
		place.Beside, place.Horizontal, place.Percent = native.Handle(sp.Target), sp.Horizontal, sp.Percent
		tp.Beside, tp.Horizontal = sp.Target, sp.Horizontal
		tp.Width, tp.Height, _, _ = layout.Carve(win, sp)
	}
	record, err := b.recordDir(addr)
	if err != nil {
		return Pane{}, err
	}
	h, err := t.Open(ctx, native.Open{Argv: s.Argv, Env: s.Env, Cwd: s.Member.Cwd, Title: s.Member.Name, Place: place})
	if err != nil {
		return Pane{}, fmt.Errorf("open a %s pane for %s: %w", b.name, s.Member.Name, err)
	}
	if err := writeRecord(record, b.name, addr, b.programPath(), h, paneRecord{Agent: s.Member.AgentID, Scope: dir}); err != nil {
		t.Close(context.WithoutCancel(ctx), h)
		return Pane{}, fmt.Errorf("record %s's %s pane: %w", s.Member.Name, b.name, err)
	}
	// The List above is this terminal's panes as they were before this
	// one: the records of panes missing from it are of panes gone since.
	if listNames(b.name, addr) {
		pruneRecords(record, b.name, dir, listed, asked, false)
	}
	if rl := plan.Relayout; rl.Layout != "" {
		if a, ok := t.(native.Arranger); ok {
			if err := a.Arrange(ctx, string(rl.Layout), rl.LeadPercent); err != nil {
				b.env.warn("could not arrange %s's panes %s: %v", b.name, rl.Layout, err)
			}
		}
	}
	return Pane{ID: string(h), Backend: b.name, Meta: &team.MemberMeta{Terminal: tp}}, nil
}

// pane returns the member's recorded pane after checking paneteam may
// touch it: one it opened in this terminal for this member, never the
// lead's.
func (b *nativeBackend) pane(m *team.Member) (*team.TerminalPane, error) {
	switch {
	case m.BackendType != b.name:
		return nil, fmt.Errorf("member %s runs on %q, not %s", m.Name, m.BackendType, b.name)
	case m.Paneteam == nil || m.Paneteam.Terminal == nil || m.TmuxPaneID == "":
		return nil, fmt.Errorf("member %s has no %s pane paneteam recorded; leaving it alone", m.Name, b.name)
	case team.IsLeadName(nil, m.Name):
		return nil, fmt.Errorf("member %s is the lead; paneteam never closes its pane", m.Name)
	}
	tp := m.Paneteam.Terminal
	if k := nativeLead[b.name]; k != "" && tp.Env[k] == m.TmuxPaneID {
		return nil, fmt.Errorf("member %s is recorded in the lead's %s pane %s; paneteam never closes it", m.Name, b.name, m.TmuxPaneID)
	}
	// config.json is writable by every member, a teammate on another
	// host included: the pane and the terminal it names must be ones
	// paneteam itself recorded opening for this member.
	dir, err := b.recordDir(tp.Env)
	if err != nil {
		return nil, err
	}
	got, rerr := readRecord(dir, native.Handle(m.TmuxPaneID))
	if rerr != nil || m.AgentID == "" || got.Agent != m.AgentID {
		err := fmt.Errorf("member %s's %s pane %s is not one paneteam recorded opening for it (in %s): leaving it alone", m.Name, b.name, m.TmuxPaneID, dir)
		if errors.Is(rerr, fs.ErrNotExist) && m.AgentID != "" {
			// The terminal's List through the folder config.json
			// names must still be one of paneteam's own.
			if err := b.checkDriverDir(m, tp.Dir); err != nil {
				return nil, err
			}
			return tp, &noRecordError{err}
		}
		return nil, err
	}
	// The driver's folder, where Zellij's names the process that closing
	// the pane signals, is the one paneteam recorded, not the one
	// config.json says.
	if tp.Dir != got.Scope {
		return nil, fmt.Errorf("member %s's %s pane %s: config.json names the folder %q for it, but paneteam opened it with %q: leaving it alone (fix the member's paneteam.terminal.dir in config.json, or close the pane by hand)",
			m.Name, b.name, m.TmuxPaneID, tp.Dir, got.Scope)
	}
	if err := b.checkDriverDir(m, got.Scope); err != nil {
		return nil, err
	}
	return tp, nil
}

// checkDriverDir refuses a driver folder that is not one paneteam keeps
// in its state folder, for a terminal whose driver acts on its files.
func (b *nativeBackend) checkDriverDir(m *team.Member, dir string) error {
	state, err := provenance.StateDir(b.env.Getenv)
	if err != nil {
		return err
	}
	if !ownDriverDir(state, b.name, dir) {
		return fmt.Errorf("member %s's %s pane %s keeps its files in %q, not in paneteam's state folder (%s): paneteam cannot trust them to name the pane's program, leaving it alone; close the pane by hand",
			m.Name, b.name, m.TmuxPaneID, dir, filepath.Join(state, driversFolder))
	}
	return nil
}

// noRecordError: paneteam has no record of the member's pane. It removes
// a record only once it closed the pane or the terminal's List proved
// the pane gone, so the pane is gone if the terminal does not list it
// (gone), and not paneteam's to touch if it does.
type noRecordError struct{ err error }

func (e *noRecordError) Error() string { return e.err.Error() }
func (e *noRecordError) Unwrap() error { return e.err }

// goneUnrecorded is nil when the member whose record pane() found
// missing (err) is not listed among the terminal's panes: its pane is
// gone. Otherwise, or when the List failed (listErr), it is err.
func goneUnrecorded(err error, listed bool, listErr error) error {
	if listErr != nil || listed {
		return err
	}
	return nil
}

// recordDir is where paneteam records, in its own state folder (never
// in the team's, which members write), which member each pane it opened
// in the terminal at addr is for.
func (b *nativeBackend) recordDir(addr map[string]string) (string, error) {
	state, err := provenance.StateDir(b.env.Getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(state, "panes", recordsFolder(b.name, addr)), nil
}

// recordsFolder names the records folder of the terminal name at addr.
func recordsFolder(name string, addr map[string]string) string {
	return name + "-" + addressKey(addr)[:16]
}

// Kill closes the member's pane; one already gone is success, the pane
// of a record pruned since included.
func (b *nativeBackend) Kill(ctx context.Context, cfg *team.Config, m *team.Member) error {
	tp, err := b.pane(m)
	var nr *noRecordError
	if errors.As(err, &nr) {
		hs, lerr := b.list(ctx, tp)
		return goneUnrecorded(err, slices.Contains(hs, native.Handle(m.TmuxPaneID)), lerr)
	}
	if err != nil {
		return err
	}
	t, err := b.driver(tp.Env, tp.Dir)
	if err != nil {
		return fmt.Errorf("reach %s to close %s's pane: %w", b.name, m.Name, err)
	}
	if err := t.Close(ctx, native.Handle(m.TmuxPaneID)); err != nil {
		return fmt.Errorf("close %s's %s pane %s: %w", m.Name, b.name, m.TmuxPaneID, err)
	}
	if dir, err := b.recordDir(tp.Env); err == nil {
		forgetRecord(dir, native.Handle(m.TmuxPaneID))
	}
	return nil
}

// Alive reports whether the member's pane is among the terminal's.
func (b *nativeBackend) Alive(ctx context.Context, cfg *team.Config, m *team.Member) (bool, error) {
	tp, err := b.pane(m)
	var nr *noRecordError
	if err != nil && !errors.As(err, &nr) {
		return false, err
	}
	hs, lerr := b.list(ctx, tp)
	if nr != nil {
		return false, goneUnrecorded(err, slices.Contains(hs, native.Handle(m.TmuxPaneID)), lerr)
	}
	if lerr != nil {
		return false, lerr
	}
	return slices.Contains(hs, native.Handle(m.TmuxPaneID)), nil
}

// list asks the terminal at tp for its panes, and prunes paneteam's
// records of those gone by that answer (pruneRecords); a failed List
// prunes nothing.
func (b *nativeBackend) list(ctx context.Context, tp *team.TerminalPane) ([]native.Handle, error) {
	t, err := b.driver(tp.Env, tp.Dir)
	if err != nil {
		return nil, fmt.Errorf("reach %s: %w", b.name, err)
	}
	asked := time.Now()
	hs, err := t.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list %s's panes: %w", b.name, err)
	}
	if dir, err := b.recordDir(tp.Env); err == nil && listNames(b.name, tp.Env) {
		pruneRecords(dir, b.name, tp.Dir, hs, asked, false)
	}
	return hs, nil
}
