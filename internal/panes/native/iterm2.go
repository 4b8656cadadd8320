package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/paneteam/paneteam/iterm2"
)

func init() { constructors["iterm2"] = newITerm2 }

// iterm2CallTimeout bounds one it2 call: the first call of a program that
// talks to iTerm2 can wait on iTerm2's "allow this program?" dialog.
const iterm2CallTimeout = 15 * time.Second

// iterm2Term drives iTerm2 through paneteam's it2 client. it2 can only
// type into a new session, so a pane's program travels in a 0600 launch
// file (WriteExecFile) and the session is typed one fixed line of
// paneteam's own: 'exec <paneteam> pane-exec <file>'.
type iterm2Term struct {
	it2  iterm2.Client
	lead string // the lead's session UUID; "" splits the active session
	exe  string // paneteam, run by the typed line
	dir  string // where launch files are written

	mu    sync.Mutex
	files map[Handle]string // launch files not yet known to be used
}

func newITerm2(env Env) (Terminal, error) {
	look := env.LookPath
	if look == nil {
		return nil, fmt.Errorf("%w: iTerm2: no way to look up it2", ErrUnavailable)
	}
	bin, err := look("it2")
	if err != nil {
		return nil, fmt.Errorf("%w: iTerm2: %w (no it2 on PATH): %s", ErrUnavailable, iterm2.ErrNotInstalled, iterm2.FixInstall)
	}
	if env.Exe == "" || env.Dir == "" {
		return nil, errors.New("iTerm2 driver: paneteam's path and a private folder are required (Env.Exe, Env.Dir)")
	}
	for _, p := range []string{env.Exe, env.Dir} {
		if strings.IndexFunc(p, unicode.IsControl) >= 0 {
			return nil, fmt.Errorf("iTerm2 driver: path %q holds a control character, which cannot be typed into a session", p)
		}
	}
	lead := ""
	if env.Getenv != nil {
		lead = iterm2.SessionFromEnv(env.Getenv("ITERM_SESSION_ID"))
	}
	return &iterm2Term{
		it2: iterm2.Client{Bin: bin}, lead: lead, exe: env.Exe, dir: env.Dir,
		files: map[Handle]string{},
	}, nil
}

func (t *iterm2Term) Name() string { return "iterm2" }

// Probe lists sessions, the call that needs iTerm2's Python API ('it2
// --version' succeeds without it, so it proves nothing).
func (t *iterm2Term) Probe(ctx context.Context) error {
	return t.call(ctx, func(ctx context.Context) error {
		_, err := t.it2.Sessions(ctx)
		return err
	})
}

// call runs one it2 call under its own deadline and says what to do
// when iTerm2 cannot be reached.
func (t *iterm2Term) call(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, iterm2CallTimeout)
	defer cancel()
	err := fn(ctx)
	switch {
	case errors.Is(err, iterm2.ErrAPIUnavailable):
		return fmt.Errorf("%w: %w; %s", ErrUnavailable, err, iterm2.FixAPI)
	case errors.Is(err, iterm2.ErrNotInstalled):
		return fmt.Errorf("%w: %w; %s", ErrUnavailable, err, iterm2.FixInstall)
	}
	return err
}

// gateLine is the one line typed into a new session: paneteam's own path
// and a launch file's path, both paneteam's, quoted for sh, bash, zsh
// and fish (iterm2.Quote). exec replaces the person's shell, so the pane
// closes when the program ends.
func (t *iterm2Term) gateLine(file string) string {
	return "exec " + iterm2.Quote(t.exe) + " pane-exec " + iterm2.Quote(file)
}

// Open makes the session (a split, or a tab of its own), names it, and
// types the gate line. it2 has no size option for a split, so
// Place.Percent is not applied: iTerm2 halves the split pane.
func (t *iterm2Term) Open(ctx context.Context, o Open) (Handle, error) {
	file, err := WriteExecFile(t.dir, o)
	if err != nil {
		return "", fmt.Errorf("open an iTerm2 pane: %w", err)
	}
	id, err := t.session(ctx, o.Place)
	if err != nil {
		os.Remove(file)
		return "", fmt.Errorf("open an iTerm2 pane for %s: %w", o.Argv[0], err)
	}
	if o.Title != "" {
		// The name is cosmetic; a session gone by now fails the typing
		// below, which is reported.
		_ = t.call(ctx, func(ctx context.Context) error { return t.it2.SetName(ctx, id, o.Title) })
	}
	if err := t.call(ctx, func(ctx context.Context) error { return t.it2.Run(ctx, id, t.gateLine(file)) }); err != nil {
		os.Remove(file)
		_ = t.call(ctx, func(ctx context.Context) error { return t.it2.Close(ctx, id) })
		return "", fmt.Errorf("start %s in iTerm2 session %s: %w", o.Argv[0], id, err)
	}
	t.mu.Lock()
	t.files[Handle(id)] = file
	t.mu.Unlock()
	return Handle(id), nil
}

// session makes the new session for p and returns its id.
func (t *iterm2Term) session(ctx context.Context, p Place) (string, error) {
	var id string
	if p.OwnTab {
		// 'it2 tab new' opens in the current window unless told which:
		// name the lead's, so the tab lands beside the lead's.
		err := t.call(ctx, func(ctx context.Context) (err error) {
			win := ""
			if t.lead != "" {
				if win, err = t.it2.WindowOf(ctx, t.lead); err != nil {
					return err
				}
			}
			id, err = t.it2.NewTab(ctx, win)
			return err
		})
		return id, err
	}
	target := string(p.Beside)
	if target == "" {
		target = t.lead
	} else if !iterm2.ValidID(target) {
		return "", fmt.Errorf("pane %q to split beside is not an iTerm2 session id", target)
	}
	err := t.call(ctx, func(ctx context.Context) (err error) {
		id, err = t.it2.Split(ctx, iterm2SplitOptions(target, p))
		return err
	})
	return id, err
}

// iterm2SplitOptions maps a Place to it2's split. iTerm2 names a split by
// its divider: 'split -v' (vertical divider) puts the new pane to the
// right, side by side, which is paneteam's Horizontal; without -v the new
// pane goes below.
func iterm2SplitOptions(target string, p Place) iterm2.SplitOptions {
	return iterm2.SplitOptions{Target: target, Vertical: p.Horizontal}
}

// Close closes the session without asking; one already gone is success.
// The lead's own session is never closed.
func (t *iterm2Term) Close(ctx context.Context, h Handle) error {
	id := string(h)
	if !iterm2.ValidID(id) {
		return fmt.Errorf("close iTerm2 pane %q: not an iTerm2 session id", id)
	}
	if t.lead != "" && id == t.lead {
		return fmt.Errorf("close iTerm2 pane %s: it is the lead's session; paneteam never closes it", id)
	}
	t.mu.Lock()
	file, ok := t.files[h]
	delete(t.files, h)
	t.mu.Unlock()
	if ok {
		os.Remove(file) // still there when the gate line never ran
	}
	err := t.call(ctx, func(ctx context.Context) error { return t.it2.Close(ctx, id) })
	if errors.Is(err, iterm2.ErrSessionNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("close iTerm2 session %s: %w", id, err)
	}
	return nil
}

// List returns every session iTerm2 lists, the lead's included.
func (t *iterm2Term) List(ctx context.Context) ([]Handle, error) {
	var ss []iterm2.Session
	err := t.call(ctx, func(ctx context.Context) (err error) {
		ss, err = t.it2.Sessions(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list iTerm2 sessions: %w", err)
	}
	out := make([]Handle, 0, len(ss))
	for _, s := range ss {
		out = append(out, Handle(s.ID))
	}
	return out, nil
}
