package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/team"
)

func init() { registry[team.BackendITerm2] = newITerm2 }

// Environment variables read by the iTerm2 backend.
const (
	// EnvITerm2Profiles=1 opens each teammate with the Dynamic Profile of
	// its colour ('paneteam iterm2 profile' generates them).
	EnvITerm2Profiles = "PANETEAM_ITERM2_PROFILES"
)

// it2Timeout bounds one it2 call: the first call of a program that talks
// to iTerm2 can wait on iTerm2's "allow this program?" dialog.
const it2Timeout = 15 * time.Second

// iterm2Backend puts teammates in iTerm2 split panes through it2. Session
// ids live in config.json (tmuxPaneId of each member, the lead's session in
// the team's paneteam.leaderPane), so separate paneteam invocations keep
// splitting the same stack (docs/PROTOCOL.md §13, "iTerm2").
type iterm2Backend struct {
	it2      iterm2.Client
	leader   string // the lead's session UUID; "" splits the active session
	profiles bool
	warn     func(string, ...any)
}

func newITerm2(env Env, cfg *team.Config) (Backend, error) {
	c, err := it2Client(env)
	if err != nil {
		return nil, err
	}
	return &iterm2Backend{
		it2:      c,
		leader:   leaderSession(env, cfg),
		profiles: env.Getenv(EnvITerm2Profiles) == "1",
		warn:     env.warn,
	}, nil
}

// it2Client finds it2 through env.LookPath (tests point it at a fake).
func it2Client(env Env) (iterm2.Client, error) {
	bin, err := env.Find("it2")
	if err != nil {
		return iterm2.Client{}, fmt.Errorf("%w (no it2 on PATH): %s", iterm2.ErrNotInstalled, iterm2.FixInstall)
	}
	return iterm2.Client{Bin: bin}, nil
}

// leaderSession is the lead's session: the one recorded for an iTerm2
// team (so a spawn from another tab still splits the team's stack), else
// the one this process runs in (ITERM_SESSION_ID, "w0t1p0:<UUID>").
func leaderSession(env Env, cfg *team.Config) string {
	if cfg != nil && cfg.Paneteam != nil && cfg.Paneteam.Backend == team.BackendITerm2 &&
		iterm2.ValidID(cfg.Paneteam.LeaderPane) {
		return cfg.Paneteam.LeaderPane
	}
	return iterm2.SessionFromEnv(env.Getenv("ITERM_SESSION_ID"))
}

func (b *iterm2Backend) Name() string { return team.BackendITerm2 }

// RecordTeam keeps the lead's session for later invocations, so they
// split the same stack (see Record).
func (b *iterm2Backend) RecordTeam(m *team.TeamMeta) {
	m.Backend = team.BackendITerm2
	if b.leader != "" {
		m.LeaderPane = b.leader
	}
}

// Spawn splits a pane, names it after the agent and types the command
// into its shell. It returns once it2 has typed the line: it2 cannot report
// on the process, so Spec.StartupCheck does not apply. A command that
// cannot start stays visible: a failed cd stops the line before exec, and
// an interactive shell survives a failed exec.
func (b *iterm2Backend) Spawn(ctx context.Context, s Spec) (Pane, error) {
	line, err := iterm2.CommandLine(s.Member.Cwd, s.Env, s.Argv,
		map[string]string{iterm2.AgentVar: s.Member.Name})
	if err != nil {
		return Pane{}, fmt.Errorf("start %s in iTerm2: %w", s.Member.Name, err)
	}
	profile := ""
	if b.profiles && s.Member.Color != "" {
		profile = iterm2.ProfileName(s.Member.Color)
	}
	id, err := b.split(ctx, b.targets(s.Config), profile)
	if err != nil {
		return Pane{}, fmt.Errorf("open an iTerm2 pane for %s: %w", s.Member.Name, err)
	}
	// The name is cosmetic: a failure is reported, not fatal.
	if err := b.call(ctx, func(ctx context.Context) error { return b.it2.SetName(ctx, id, s.Member.Name) }); err != nil {
		b.warn("could not name iTerm2 session %s %q: %v", id, s.Member.Name, err)
	}
	if err := b.call(ctx, func(ctx context.Context) error { return b.it2.Run(ctx, id, line) }); err != nil {
		return Pane{}, fmt.Errorf("start %s in iTerm2 session %s (the pane stays open): %w", s.Member.Name, id, err)
	}
	return Pane{ID: id, Backend: team.BackendITerm2}, nil
}

// targets lists where a new pane may split from, best last: the lead's
// session, then each iTerm2 teammate in the order they joined.
func (b *iterm2Backend) targets(cfg *team.Config) []string {
	out := []string{b.leader}
	if cfg == nil {
		return out
	}
	for _, m := range cfg.Members {
		if m.Name != team.LeadName && m.BackendType == team.BackendITerm2 &&
			iterm2.ValidID(m.TmuxPaneID) && m.TmuxPaneID != b.leader {
			out = append(out, m.TmuxPaneID)
		}
	}
	return out
}

// split splits the last target, stepping back one target each time the
// one tried turns out to be closed (judged by 'session list --json', never
// by the error text alone): at most len(targets) tries, the lead's session
// last. The first teammate is a vertical split of the lead (beside it),
// later ones split a teammate horizontally (below it).
func (b *iterm2Backend) split(ctx context.Context, targets []string, profile string) (string, error) {
	var gone []string
	for i := len(targets) - 1; i >= 0; i-- {
		t := targets[i]
		var id string
		err := b.call(ctx, func(ctx context.Context) (err error) {
			id, err = b.it2.Split(ctx, iterm2.SplitOptions{Target: t, Vertical: i == 0, Profile: profile})
			return err
		})
		if err == nil {
			return id, nil
		}
		if errors.Is(err, iterm2.ErrAPIUnavailable) {
			return "", fmt.Errorf("%w; %s", err, iterm2.FixAPI)
		}
		if errors.Is(err, iterm2.ErrNotInstalled) || t == "" {
			return "", err
		}
		alive, lerr := b.alive(ctx, t)
		if lerr != nil {
			return "", fmt.Errorf("%w (and listing sessions to see whether %s was closed failed: %v)", err, t, lerr)
		}
		if alive {
			return "", err // the target is there: the split itself failed
		}
		gone = append(gone, t)
	}
	return "", fmt.Errorf("every iTerm2 session to split from is closed (%s), the lead's included: run paneteam from an open iTerm2 session",
		strings.Join(gone, ", "))
}

// call runs one it2 call under its own deadline.
func (b *iterm2Backend) call(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, it2Timeout)
	defer cancel()
	return fn(ctx)
}

func (b *iterm2Backend) alive(ctx context.Context, id string) (bool, error) {
	var ok bool
	err := b.call(ctx, func(ctx context.Context) (err error) {
		ok, err = b.it2.Has(ctx, id)
		return err
	})
	return ok, err
}

// session returns the member's session id after checking paneteam may
// touch it: an iTerm2 member with a session id that is not the lead's.
func (b *iterm2Backend) session(m *team.Member) (string, error) {
	switch {
	case m.BackendType != team.BackendITerm2:
		return "", fmt.Errorf("member %s runs on %q, not iTerm2", m.Name, m.BackendType)
	case !iterm2.ValidID(m.TmuxPaneID):
		return "", fmt.Errorf("member %s has tmuxPaneId %q, which is not an iTerm2 session id; leaving it alone", m.Name, m.TmuxPaneID)
	case team.IsLeadName(nil, m.Name) || m.TmuxPaneID == b.leader:
		return "", fmt.Errorf("member %s is in the lead's iTerm2 session %s; paneteam never closes it", m.Name, m.TmuxPaneID)
	}
	return m.TmuxPaneID, nil
}

// Kill closes the member's session; one already closed is success.
func (b *iterm2Backend) Kill(ctx context.Context, cfg *team.Config, m *team.Member) error {
	id, err := b.session(m)
	if err != nil {
		return err
	}
	err = b.call(ctx, func(ctx context.Context) error { return b.it2.Close(ctx, id) })
	if errors.Is(err, iterm2.ErrSessionNotFound) {
		return nil
	}
	if errors.Is(err, iterm2.ErrAPIUnavailable) {
		return fmt.Errorf("close %s's iTerm2 session: %w; %s", m.Name, err, iterm2.FixAPI)
	}
	if err != nil {
		return fmt.Errorf("close %s's iTerm2 session: %w", m.Name, err)
	}
	return nil
}

// Alive reports whether the member's session is still listed.
func (b *iterm2Backend) Alive(ctx context.Context, cfg *team.Config, m *team.Member) (bool, error) {
	if !iterm2.ValidID(m.TmuxPaneID) {
		return false, fmt.Errorf("member %s has tmuxPaneId %q, which is not an iTerm2 session id", m.Name, m.TmuxPaneID)
	}
	ok, err := b.alive(ctx, m.TmuxPaneID)
	if errors.Is(err, iterm2.ErrAPIUnavailable) {
		return false, fmt.Errorf("%w; %s", err, iterm2.FixAPI)
	}
	return ok, err
}
