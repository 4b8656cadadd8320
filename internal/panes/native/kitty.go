package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/sys/program"
)

// kitty drives kitty's windows through its remote control, `kitty @ --to
// $KITTY_LISTEN_ON ...` (https://sw.kovidgoyal.net/kitty/remote-control/).
// A paneteam pane is a kitty window; its Handle is the window id.
type kitty struct {
	bin  string
	addr string // KITTY_LISTEN_ON where the lead started
	lead Handle // KITTY_WINDOW_ID: the lead's window

	// run runs `kitty args...` and returns its stdout; tests replace it.
	run func(ctx context.Context, args ...string) (string, error)

	mu  sync.Mutex
	ver [3]int // kitty --version, once known
}

func init() { constructors["kitty"] = newKitty }

// kittyHowTo tells a person how to let paneteam drive their kitty.
const kittyHowTo = "add `allow_remote_control yes` and `listen_on unix:/tmp/kitty` to kitty.conf " +
	"(or start kitty with `kitty -o allow_remote_control=yes --listen-on unix:/tmp/kitty`) and restart kitty"

// Versions of kitty that brought the launch options paneteam uses when
// they are there (https://sw.kovidgoyal.net/kitty/changelog/): --bias
// (0.36.0) sizes the new window; --next-to (0.40.0) splits a window other
// than the tab's active one. Older kittys get the same result by focusing
// the window to split and resizing the new one afterwards.
var (
	kittyBiasSince   = [3]int{0, 36, 0}
	kittyNextToSince = [3]int{0, 40, 0}
)

// kittyCallTimeout bounds a call whose context has no deadline.
const kittyCallTimeout = 15 * time.Second

func newKitty(env Env) (Terminal, error) {
	bin, err := env.LookPath("kitty")
	if err != nil {
		return nil, fmt.Errorf("kitty: the kitty program is not on PATH (%v): install kitty or add its folder to PATH: %w", err, ErrUnavailable)
	}
	addr := env.Getenv("KITTY_LISTEN_ON")
	if addr == "" {
		return nil, fmt.Errorf("kitty: KITTY_LISTEN_ON is not set, so kitty's remote control is off here: %s: %w", kittyHowTo, ErrUnavailable)
	}
	k := &kitty{bin: bin, addr: addr, lead: Handle(env.Getenv("KITTY_WINDOW_ID"))}
	k.run = k.exec
	return k, nil
}

func (k *kitty) Name() string { return "kitty" }

// exec runs kitty with args under ctx (or kittyCallTimeout).
func (k *kitty) exec(ctx context.Context, args ...string) (string, error) {
	return program.Output(ctx, program.Cmd{
		Path: k.bin, Name: "kitty", Args: args,
		// --to names the kitty; KITTY_WINDOW_ID, which kitty @ sends as
		// the calling window, is the lead's, as when the lead itself
		// calls.
		Env: cliEnviron(func(v string) string {
			return map[string]string{"KITTY_LISTEN_ON": k.addr, "KITTY_WINDOW_ID": string(k.lead)}[v]
		}, "KITTY_LISTEN_ON", "KITTY_WINDOW_ID"),
		DefaultTimeout: kittyCallTimeout,
	})
}

// rc runs `kitty @ --to <addr> args...`.
func (k *kitty) rc(ctx context.Context, args ...string) (string, error) {
	return k.run(ctx, append([]string{"@", "--to", k.addr}, args...)...)
}

// Probe asks kitty for its windows: that answers only when remote control
// is on and the address is right.
func (k *kitty) Probe(ctx context.Context) error {
	if _, err := k.rc(ctx, "ls"); err != nil {
		return fmt.Errorf("kitty at %s does not answer remote control: %s: %w (%v)", k.addr, kittyHowTo, ErrUnavailable, err)
	}
	if _, err := k.version(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// kittyPlaceholders matches the words kitty's launch replaces in a command
// line (@selection, @active-kitty-window-id, @cursor-x, ...): an argument
// like that would not reach the program as given.
var kittyPlaceholders = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@[a-z][a-z-]*$`) })

// Open launches argv in a new kitty window and returns the window id.
func (k *kitty) Open(ctx context.Context, o Open) (Handle, error) {
	if len(o.Argv) == 0 {
		return "", errors.New("kitty: nothing to run: the pane's command is empty")
	}
	for _, a := range o.Argv {
		if kittyPlaceholders().MatchString(a) {
			return "", fmt.Errorf("kitty: the argument %q would be replaced by kitty's launch (it reads @words as placeholders): pass it another way", a)
		}
	}
	for _, e := range o.Env {
		if !envlist.Valid(e) {
			return "", fmt.Errorf("kitty: environment entry %q is not KEY=VALUE", e)
		}
	}
	if b := o.Place.Beside; b != "" && !o.Place.OwnTab {
		if err := kittyCheckHandle(b); err != nil {
			return "", err
		}
	}
	ver, err := k.version(ctx)
	if err != nil {
		return "", err
	}
	if o.Place.OwnTab {
		return k.launch(ctx, kittyLaunchArgs(o, k.lead, "", false))
	}
	target := o.Place.Beside
	if target == "" {
		target = k.lead
	}
	if target == "" {
		return "", errors.New("kitty: KITTY_WINDOW_ID is not set, so paneteam cannot tell which kitty window to split: run paneteam from inside kitty")
	}
	tab, err := k.splitsTab(ctx, target)
	if err != nil {
		return "", err
	}
	if !versionAtLeast(ver, kittyNextToSince) {
		return k.openOld(ctx, o, target, tab, ver)
	}
	return k.launch(ctx, kittyLaunchArgs(o, target, target, versionAtLeast(ver, kittyBiasSince)))
}

// kittyLaunchArgs builds `launch ...` for o. A window goes into the tab of
// target (matched as window_id:, since a bare id: would first match a tab
// of that number), split beside nextTo when given (kitty 0.40+), with
// --bias when withBias (kitty 0.36+); OwnTab opens a tab in target's OS
// window. The lead keeps the focus either way.
func kittyLaunchArgs(o Open, target, nextTo Handle, withBias bool) []string {
	a := []string{"launch"}
	if o.Place.OwnTab {
		a = append(a, "--type=tab")
	} else {
		a = append(a, "--type=window")
		if o.Place.Horizontal {
			a = append(a, "--location=vsplit")
		} else {
			a = append(a, "--location=hsplit")
		}
		if nextTo != "" {
			a = append(a, "--next-to=id:"+string(nextTo))
		}
		if withBias && o.Place.Percent > 0 {
			a = append(a, "--bias="+strconv.Itoa(o.Place.Percent))
		}
	}
	if target != "" {
		a = append(a, "--match=window_id:"+string(target))
	}
	a = append(a, "--keep-focus")
	if o.Cwd != "" {
		a = append(a, "--cwd="+o.Cwd)
	}
	for _, e := range o.Env {
		a = append(a, "--env="+e)
	}
	if o.Title != "" {
		a = append(a, "--title="+o.Title)
		if o.Place.OwnTab {
			a = append(a, "--tab-title="+o.Title)
		}
	}
	a = append(a, "--")
	return append(a, o.Argv...)
}

// launch runs a launch and returns the window id kitty prints.
func (k *kitty) launch(ctx context.Context, args []string) (Handle, error) {
	out, err := k.rc(ctx, args...)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(out)
	if n, err := strconv.Atoi(id); err != nil || n <= 0 {
		return "", fmt.Errorf("kitty launch printed %q, not a window id", id)
	}
	return Handle(id), nil
}

// openOld splits target in a kitty older than 0.40, whose launch splits
// the tab's active window: it makes target the active window for the
// launch and gives the focus back, then sizes the new window.
func (k *kitty) openOld(ctx context.Context, o Open, target Handle, tab kittyTab, ver [3]int) (Handle, error) {
	focused := tab.focusedWindow
	if tab.active != target {
		if _, err := k.rc(ctx, "focus-window", "--match=id:"+string(target)); err != nil {
			return "", err
		}
	}
	h, err := k.launch(ctx, kittyLaunchArgs(o, target, "", versionAtLeast(ver, kittyBiasSince)))
	if tab.active != target {
		back := focused
		if back == "" {
			back = tab.active
		}
		if back != "" {
			if _, ferr := k.rc(ctx, "focus-window", "--match=id:"+string(back)); ferr != nil && err == nil {
				err = ferr
			}
		}
	}
	if err != nil || o.Place.Percent <= 0 || o.Place.Percent == 50 || versionAtLeast(ver, kittyBiasSince) {
		return h, err
	}
	return h, k.resizeTo(ctx, h, o.Place.Horizontal, o.Place.Percent)
}

// resizeTo gives window h percent of the split it was made by, with
// kitty's resize-window (in cells): one step by the split's size, then one
// correction by what a cell turned out to move the split.
func (k *kitty) resizeTo(ctx context.Context, h Handle, horizontal bool, percent int) error {
	axis := "--axis=vertical"
	if horizontal {
		axis = "--axis=horizontal"
	}
	want := float64(percent) / 100
	share, cells, err := k.splitShare(ctx, h, horizontal)
	if err != nil {
		return err
	}
	step := int(math.Round((want - share) * float64(cells)))
	for try := 0; try < 2 && step != 0; try++ {
		if _, err := k.rc(ctx, "resize-window", "--match=id:"+string(h), axis, "--increment="+strconv.Itoa(step)); err != nil {
			return err
		}
		now, _, err := k.splitShare(ctx, h, horizontal)
		if err != nil {
			return err
		}
		perCell := (now - share) / float64(step)
		if perCell <= 0 {
			return nil
		}
		share = now
		step = int(math.Round((want - share) / perCell))
	}
	return nil
}

// Close closes window h; kitty hangs up its program. A window already
// gone is success.
func (k *kitty) Close(ctx context.Context, h Handle) error {
	if err := kittyCheckHandle(h); err != nil {
		return err
	}
	_, err := k.rc(ctx, "close-window", "--ignore-no-match", "--match=id:"+string(h))
	if err != nil && kittyNoMatch(err) {
		return nil
	}
	return err
}

// kittyCheckHandle refuses a handle that is not a kitty window id: it goes
// into a match expression, where other text would match other windows.
func kittyCheckHandle(h Handle) error {
	if n, err := strconv.Atoi(string(h)); err != nil || n <= 0 || strconv.Itoa(n) != string(h) {
		return fmt.Errorf("kitty: %q is not a kitty window id (a number such as KITTY_WINDOW_ID)", h)
	}
	return nil
}

// kittyNoMatch reports a kitty error saying nothing matched.
func kittyNoMatch(err error) bool {
	var pe *program.Error
	return errors.As(err, &pe) && strings.Contains(pe.Stderr, "No matching")
}

// List returns every window kitty has, in all its OS windows and tabs.
func (k *kitty) List(ctx context.Context) ([]Handle, error) {
	ls, err := k.ls(ctx)
	if err != nil {
		return nil, err
	}
	var hs []Handle
	for _, o := range ls {
		for _, t := range o.Tabs {
			for _, w := range t.Windows {
				hs = append(hs, Handle(strconv.Itoa(w.ID)))
			}
		}
	}
	return hs, nil
}

// kittyLS is the part of `kitty @ ls` paneteam reads
// (https://sw.kovidgoyal.net/kitty/remote-control/#kitty-ls).
type kittyLS []struct {
	Tabs []struct {
		ID             int             `json:"id"`
		Layout         string          `json:"layout"`
		EnabledLayouts []string        `json:"enabled_layouts"`
		LayoutState    json.RawMessage `json:"layout_state"`
		Windows        []struct {
			ID      int  `json:"id"`
			Active  bool `json:"is_active_window"`
			Focused bool `json:"is_focused"`
			Columns int  `json:"columns"`
			Lines   int  `json:"lines"`
		} `json:"windows"`
	} `json:"tabs"`
}

func (k *kitty) ls(ctx context.Context) (kittyLS, error) {
	out, err := k.rc(ctx, "ls")
	if err != nil {
		return nil, err
	}
	var ls kittyLS
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		return nil, fmt.Errorf("kitty @ ls: unexpected output: %w", err)
	}
	return ls, nil
}

// kittyTab is what Open needs to know of the tab holding a window.
type kittyTab struct {
	active        Handle // the tab's active window
	focusedWindow Handle // the window with the keyboard focus, in any tab
}

// splitsTab finds target's tab and puts it in kitty's splits layout, the
// one layout where launch --location=vsplit/hsplit splits a window.
func (k *kitty) splitsTab(ctx context.Context, target Handle) (kittyTab, error) {
	ls, err := k.ls(ctx)
	if err != nil {
		return kittyTab{}, err
	}
	var tab kittyTab
	found := false
	layout, enabled := "", []string(nil)
	for _, o := range ls {
		for _, t := range o.Tabs {
			for _, w := range t.Windows {
				h := Handle(strconv.Itoa(w.ID))
				if w.Focused {
					tab.focusedWindow = h
				}
				if h == target {
					found, layout, enabled = true, t.Layout, t.EnabledLayouts
					for _, x := range t.Windows {
						if x.Active {
							tab.active = Handle(strconv.Itoa(x.ID))
						}
					}
				}
			}
		}
	}
	if !found {
		return tab, fmt.Errorf("kitty: window %s, the pane to split, is gone", target)
	}
	if layout == "splits" {
		return tab, nil
	}
	if !kittyHas(enabled, "splits") {
		return tab, fmt.Errorf("kitty: the tab of window %s does not allow the splits layout (enabled_layouts is %s), which paneteam needs to place panes beside each other: add splits to enabled_layouts in kitty.conf (e.g. `enabled_layouts splits,stack`), or use paneteam's windows layout, which opens each pane in a tab of its own",
			target, strings.Join(enabled, ","))
	}
	if _, err := k.rc(ctx, "goto-layout", "--match=window_id:"+string(target), "splits"); err != nil {
		return tab, err
	}
	return tab, nil
}

// splitShare is window h's share of the split holding it, from the splits
// layout's state in kitty @ ls, and the size in cells of both sides.
func (k *kitty) splitShare(ctx context.Context, h Handle, horizontal bool) (share float64, cells int, err error) {
	ls, err := k.ls(ctx)
	if err != nil {
		return 0, 0, err
	}
	id, _ := strconv.Atoi(string(h))
	for _, o := range ls {
		for _, t := range o.Tabs {
			size := map[int]int{}
			for _, w := range t.Windows {
				size[w.ID] = w.Lines
				if horizontal {
					size[w.ID] = w.Columns
				}
			}
			if _, ok := size[id]; !ok {
				continue
			}
			var st struct {
				Pairs kittyPair `json:"pairs"`
			}
			if err := json.Unmarshal(t.LayoutState, &st); err != nil {
				return 0, 0, fmt.Errorf("kitty @ ls: unexpected splits layout state: %w", err)
			}
			p, second := st.Pairs.find(id)
			if p == nil {
				return 0, 0, fmt.Errorf("kitty: window %s is not in a split", h)
			}
			share = p.Bias
			if second {
				share = 1 - p.Bias
			}
			return share, p.cells(size, horizontal), nil
		}
	}
	return 0, 0, fmt.Errorf("kitty: window %s is gone", h)
}

// kittyPair is a node of kitty's splits layout state: two sides, each a
// window id or another pair, and the first side's share (bias).
type kittyPair struct {
	Horizontal bool            `json:"horizontal"`
	Bias       float64         `json:"bias"`
	One        json.RawMessage `json:"one"`
	Two        json.RawMessage `json:"two"`
}

// side is a side of a pair: a window id, or a pair.
func kittySide(raw json.RawMessage) (id int, p *kittyPair) {
	if len(raw) == 0 {
		return 0, nil
	}
	if err := json.Unmarshal(raw, &id); err == nil {
		return id, nil
	}
	p = new(kittyPair)
	if json.Unmarshal(raw, p) != nil {
		return 0, nil
	}
	return 0, p
}

// find returns the pair holding window id directly, and whether it is the
// second side.
func (p *kittyPair) find(id int) (*kittyPair, bool) {
	for i, raw := range []json.RawMessage{p.One, p.Two} {
		w, sub := kittySide(raw)
		if sub != nil {
			if q, second := sub.find(id); q != nil {
				return q, second
			}
		} else if w == id && id != 0 {
			return p, i == 1
		}
	}
	return nil, false
}

// cells is the pair's size in cells along its axis (borders left out).
func (p *kittyPair) cells(size map[int]int, horizontal bool) int {
	n := 0
	for _, raw := range []json.RawMessage{p.One, p.Two} {
		w, sub := kittySide(raw)
		switch {
		case sub != nil && sub.Horizontal == horizontal:
			n += sub.cells(size, horizontal)
		case sub != nil:
			n += sub.anyCells(size)
		default:
			n += size[w]
		}
	}
	return n
}

// anyCells is the size of a pair split across the axis: its first window.
func (p *kittyPair) anyCells(size map[int]int) int {
	w, sub := kittySide(p.One)
	if sub != nil {
		return sub.anyCells(size)
	}
	return size[w]
}

// version returns the kitty program's version, asked once.
func (k *kitty) version(ctx context.Context) ([3]int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ver != [3]int{} {
		return k.ver, nil
	}
	out, err := k.run(ctx, "--version")
	if err != nil {
		return k.ver, err
	}
	v, err := kittyParseVersion(out)
	if err != nil {
		return k.ver, err
	}
	k.ver = v
	return v, nil
}

// kittyParseVersion reads `kitty --version`: "kitty 0.26.5 created by ...".
func kittyParseVersion(s string) ([3]int, error) { return parseVersion("kitty", s) }

// parseVersion reads "<name> X.Y.Z ...", what `<name> --version` prints
// (kitty, zellij).
func parseVersion(name, s string) ([3]int, error) {
	var v [3]int
	f := strings.Fields(s)
	if len(f) < 2 || f[0] != name {
		return v, fmt.Errorf("%s --version printed %q, not %s's version", name, strings.TrimSpace(s), name)
	}
	for i, p := range strings.SplitN(f[1], ".", 3) {
		if end := strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }); end >= 0 {
			p = p[:end] // 0.45.0+git2025..., 0.40.1-dev
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, fmt.Errorf("%s --version printed %q, not %s's version", name, strings.TrimSpace(s), name)
		}
		v[i] = n
	}
	return v, nil
}

func versionAtLeast(v, min [3]int) bool {
	for i := range v {
		if v[i] != min[i] {
			return v[i] > min[i]
		}
	}
	return true
}

func kittyHas(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
