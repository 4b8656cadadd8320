package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/sys/program"
)

// WezTerm is driven through its mux CLI, `wezterm cli`
// (https://wezterm.org/cli/cli/index.html), from a program running in one
// of its panes: WEZTERM_UNIX_SOCKET names the mux and WEZTERM_PANE the
// lead's pane. Every call is `wezterm cli --no-auto-start ...`, with
// WEZTERM_UNIX_SOCKET and WEZTERM_PANE as the lead had them (unset when
// the lead had none: without the socket the CLI looks for a WezTerm GUI
// of its own, see https://wezterm.org/cli/cli/index.html). Commands used,
// all present since 20220624-141144-bd1b7c5d unless noted:
//
//   - split-pane --pane-id N --right|--bottom [--percent P] [--cwd D] -- argv
//     (prints the new pane's id);
//   - spawn --pane-id N [--cwd D] -- argv: a new tab in N's window;
//   - kill-pane --pane-id N;
//   - list --format json;
//   - set-tab-title --pane-id N TITLE (20230408-112425-69ae8472): the
//     only title the CLI can set. A split pane's title is its program's
//     own (WezTerm has no CLI for pane titles), so Title only names tabs.
//
// The CLI has no option for a pane's environment: the pane gets the mux
// server's, so Env is passed by running argv under env(1) (see
// weztermEnvArgv).
type wezterm struct {
	env    Env
	bin    string
	envBin string
}

// weztermCallTimeout bounds a CLI call when the caller's context has no
// deadline.
const weztermCallTimeout = 15 * time.Second

func init() { constructors["wezterm"] = newWezTerm }

func newWezTerm(e Env) (Terminal, error) {
	bin, err := e.LookPath("wezterm")
	if err != nil {
		return nil, fmt.Errorf("%w: wezterm is not on PATH (%v): install WezTerm (https://wezterm.org/install/) and run paneteam in one of its panes", ErrUnavailable, err)
	}
	if e.Getenv("WEZTERM_PANE") == "" {
		return nil, fmt.Errorf("%w: not inside WezTerm (WEZTERM_PANE is not set): start paneteam from a WezTerm pane", ErrUnavailable)
	}
	// Without its socket, the CLI reaches whichever WezTerm it finds
	// (a GUI, another instance): panes would open, be listed and be
	// closed there, by ids that mean other panes.
	if e.Getenv("WEZTERM_UNIX_SOCKET") == "" {
		return nil, fmt.Errorf("%w: WEZTERM_UNIX_SOCKET is not set, so this WezTerm cannot be told from another one: WezTerm sets it in the panes it starts (since 20230408); run paneteam in a pane of a current WezTerm, or set it to this WezTerm's socket", ErrUnavailable)
	}
	w := &wezterm{env: e, bin: bin}
	if p, err := e.LookPath("env"); err == nil {
		w.envBin = p
	}
	return w, nil
}

func (w *wezterm) Name() string { return "wezterm" }

// weztermAddress is the variables naming the WezTerm instance (its mux
// socket) and the lead's pane in it.
var weztermAddress = []string{"WEZTERM_UNIX_SOCKET", "WEZTERM_PANE"}

func (w *wezterm) run(ctx context.Context, args ...string) (string, error) {
	// --no-auto-start: a mux socket that does not answer is an error,
	// not a reason to start a wezterm-mux-server (from cron, say) whose
	// empty answer would say every pane is gone.
	if len(args) > 0 && args[0] == "cli" {
		args = append([]string{"cli", "--no-auto-start"}, args[1:]...)
	}
	out, err := program.Output(ctx, program.Cmd{
		Path: w.bin, Name: "wezterm", Args: args,
		Env:            cliEnviron(w.env.Getenv, weztermAddress...),
		DefaultTimeout: weztermCallTimeout,
	})
	if err != nil {
		return "", err
	}
	return out, nil
}

func (w *wezterm) Probe(ctx context.Context) error {
	if _, err := w.run(ctx, "cli", "list", "--format", "json"); err != nil {
		sock := w.env.Getenv("WEZTERM_UNIX_SOCKET")
		if sock == "" {
			return fmt.Errorf("%w: %v: WEZTERM_UNIX_SOCKET is not set; start paneteam from a WezTerm pane (WezTerm sets it there)", ErrUnavailable, err)
		}
		return fmt.Errorf("%w: %v: WezTerm's mux socket WEZTERM_UNIX_SOCKET=%s does not answer; is that WezTerm still running?", ErrUnavailable, err, sock)
	}
	return nil
}

func (w *wezterm) Open(ctx context.Context, o Open) (Handle, error) {
	args, err := weztermOpenArgs(o, w.env.Getenv("WEZTERM_PANE"), w.envBin)
	if err != nil {
		return "", err
	}
	out, err := w.run(ctx, args...)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(out)
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("wezterm %s printed %q, not a pane id", args[1], out)
	}
	if o.Place.OwnTab && o.Title != "" {
		if _, err := w.run(ctx, "cli", "set-tab-title", "--pane-id", id, o.Title); err != nil {
			return Handle(id), err
		}
	}
	return Handle(id), nil
}

// weztermOpenArgs builds the `wezterm cli` arguments that open o; lead is
// the lead's pane ($WEZTERM_PANE), envBin env(1) for o.Env.
func weztermOpenArgs(o Open, lead, envBin string) ([]string, error) {
	argv, err := weztermEnvArgv(envBin, o.Env, o.Argv)
	if err != nil {
		return nil, err
	}
	beside := string(o.Place.Beside)
	if beside == "" || o.Place.OwnTab {
		beside = lead
	}
	if _, err := strconv.Atoi(beside); err != nil {
		return nil, fmt.Errorf("wezterm: %q is not a WezTerm pane id (WEZTERM_PANE=%q): start paneteam from a WezTerm pane", beside, lead)
	}
	var args []string
	if o.Place.OwnTab {
		args = []string{"cli", "spawn", "--pane-id", beside}
	} else {
		args = []string{"cli", "split-pane", "--pane-id", beside}
		if o.Place.Horizontal {
			args = append(args, "--right")
		} else {
			args = append(args, "--bottom")
		}
		if p := o.Place.Percent; p > 0 {
			if p >= 100 {
				return nil, fmt.Errorf("wezterm: a split of %d%% leaves nothing of the pane it splits: give 1 to 99", p)
			}
			args = append(args, "--percent", strconv.Itoa(p))
		}
	}
	if o.Cwd != "" {
		args = append(args, "--cwd", o.Cwd)
	}
	return append(append(args, "--"), argv...), nil
}

// weztermEnvArgv returns argv run with env added to its environment:
// `env -- K=V... argv...`. The "--" ends env's options, every K=V is an
// assignment, and the first word without "=" is the program, so argv[0]
// must not hold "=" (an error) while later arguments may hold anything:
// env passes them on untouched and no shell sees them.
func weztermEnvArgv(envBin string, env, argv []string) ([]string, error) {
	if len(argv) == 0 {
		return nil, errors.New("no program to run in the pane")
	}
	if len(env) == 0 {
		return argv, nil
	}
	for _, kv := range env {
		if !envlist.Valid(kv) {
			return nil, fmt.Errorf("environment entry %q is not KEY=VALUE", kv)
		}
	}
	if strings.Contains(argv[0], "=") {
		return nil, fmt.Errorf("program name %q holds '=', which env(1) would take for a variable: rename or link the program", argv[0])
	}
	if envBin == "" {
		return nil, errors.New("env(1) is not on PATH, and the pane's environment can only be set through it")
	}
	out := append([]string{envBin, "--"}, env...)
	return append(out, argv...), nil
}

func (w *wezterm) Close(ctx context.Context, h Handle) error {
	if _, err := strconv.Atoi(string(h)); err != nil {
		return fmt.Errorf("wezterm: %q is not a WezTerm pane id", h)
	}
	_, err := w.run(ctx, "cli", "kill-pane", "--pane-id", string(h))
	if err == nil {
		return nil
	}
	panes, lerr := w.List(ctx)
	if lerr != nil {
		return err
	}
	for _, p := range panes {
		if p == h {
			return err
		}
	}
	return nil // already gone
}

// weztermPane is one entry of `wezterm cli list --format json`
// (https://wezterm.org/cli/cli/list.html).
type weztermPane struct {
	WindowID  int    `json:"window_id"`
	TabID     int    `json:"tab_id"`
	PaneID    int    `json:"pane_id"`
	Workspace string `json:"workspace"`
	Title     string `json:"title"`
	Cwd       string `json:"cwd"`
}

func (w *wezterm) List(ctx context.Context) ([]Handle, error) {
	out, err := w.run(ctx, "cli", "list", "--format", "json")
	if err != nil {
		return nil, err
	}
	var panes []weztermPane
	if err := json.Unmarshal([]byte(out), &panes); err != nil {
		return nil, fmt.Errorf("wezterm cli list --format json: %w", err)
	}
	hs := make([]Handle, 0, len(panes))
	for _, p := range panes {
		hs = append(hs, Handle(strconv.Itoa(p.PaneID)))
	}
	return hs, nil
}
