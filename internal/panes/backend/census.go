package backend

import (
	"context"
	"errors"
	"time"

	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// AliveTimeout bounds one liveness question to a backend, so that a hung
// tmux or it2 cannot freeze a status line.
const AliveTimeout = 3 * time.Second

// Census answers whether many members' panes are alive with one question
// per tmux server: the first member on a server lists every pane there
// (one `list-panes -a`), and every other member on it is judged from that
// listing. Members of other backends are asked of their backend (an
// in-process host is a process check; iTerm2 one it2 call each), except
// members in a terminal's own panes: one List per terminal. A
// Census is one moment: make one per snapshot, and use it from one
// goroutine.
type Census struct {
	env       Env
	servers   map[string]*listing
	terminals map[string]*termListing
}

// termListing is one terminal's panes, or why they are unknown.
type termListing struct {
	panes map[string]bool
	err   error
}

// listing is one tmux server's panes, by id, or why they are unknown.
type listing struct {
	panes map[string]tmux.Pane
	err   error
	// safe: the panes came from a status line (Given), their agent ids
	// as tmux.SafeAgent keeps them.
	safe bool
}

// NewCensus returns an empty census over env.
func NewCensus(env Env) *Census {
	return &Census{env: env, servers: map[string]*listing{}, terminals: map[string]*termListing{}}
}

// Alive reports whether m's pane (or host) still exists, as its backend's
// Alive would, from one listing per tmux server.
func (c *Census) Alive(ctx context.Context, cfg *team.Config, m *team.Member) (bool, error) {
	if m.BackendType == team.BackendTmux {
		return c.tmuxAlive(ctx, m)
	}
	if IsNative(m.BackendType) {
		return c.nativeAlive(ctx, m)
	}
	b, err := ForMember(c.env, cfg, m)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, AliveTimeout)
	defer cancel()
	return b.Alive(ctx, cfg, m)
}

// tmuxAlive: the pane exists, carries the member's agent id and its
// command has not exited. A pane gone, its server gone, or the id now
// naming someone else's pane (tmux reuses ids after a restart) is dead.
func (c *Census) tmuxAlive(ctx context.Context, m *team.Member) (bool, error) {
	srv, err := memberServer(nil, m)
	if err != nil {
		return false, err
	}
	panes, err := c.Panes(ctx, srv)
	switch {
	case errors.Is(err, tmux.ErrNoServer):
		return false, nil
	case err != nil:
		return false, err
	}
	p, ok := panes[m.TmuxPaneID]
	want := m.AgentID
	if c.servers[srv.String()].safe {
		want = tmux.SafeAgent(want)
	}
	return ok && p.Agent == want && !p.Dead, nil
}

// Given records the panes of srv as the tmux status line running on it
// listed them (tmux.StatusPanesFormat), so that nothing is asked of srv:
// the status line's own tmux client would cost as much as the rest of it.
func (c *Census) Given(srv tmux.Server, panes map[string]tmux.Pane) {
	c.servers[srv.String()] = &listing{panes: panes, safe: true}
}

// Panes lists the panes of srv by id, asking tmux once per census. The
// question is not tied to ctx's cancellation, only bounded by
// AliveTimeout: a read-only status line may simply end on a signal, and
// watching ctx would install the signal handling it does not need.
func (c *Census) Panes(ctx context.Context, srv tmux.Server) (map[string]tmux.Pane, error) {
	key := srv.String()
	if l, ok := c.servers[key]; ok {
		return l.panes, l.err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AliveTimeout)
	defer cancel()
	all, err := srv.AllPanes(ctx)
	l := &listing{err: err}
	if err == nil {
		l.panes = make(map[string]tmux.Pane, len(all))
		for _, p := range all {
			l.panes[p.ID] = p
		}
	}
	c.servers[key] = l
	return l.panes, l.err
}

// nativeAlive: the member's pane is among its terminal's panes, listed
// once per terminal (and records folder) per census.
func (c *Census) nativeAlive(ctx context.Context, m *team.Member) (bool, error) {
	b := &nativeBackend{env: c.env, name: m.BackendType}
	tp, err := b.pane(m)
	var nr *noRecordError
	if err != nil && !errors.As(err, &nr) {
		return false, err
	}
	key := m.BackendType + "\x00" + addressKey(tp.Env) + "\x00" + tp.Dir
	l, ok := c.terminals[key]
	if !ok {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AliveTimeout)
		defer cancel()
		hs, err := b.list(ctx, tp)
		l = &termListing{panes: map[string]bool{}, err: err}
		for _, h := range hs {
			l.panes[string(h)] = true
		}
		c.terminals[key] = l
	}
	if nr != nil {
		return false, goneUnrecorded(err, l.panes[m.TmuxPaneID], l.err)
	}
	return l.panes[m.TmuxPaneID], l.err
}

// PanePID is the process id tmux gives for a tmux member's pane, from this
// census's listing (asked once, as Alive asks), or 0 when the member is not
// a tmux member, its pane is not listed as its own, or the listing failed.
// A watcher waits on that process's exit in place of asking tmux again.
func (c *Census) PanePID(ctx context.Context, m *team.Member) int {
	if m.BackendType != team.BackendTmux {
		return 0
	}
	srv, err := memberServer(nil, m)
	if err != nil {
		return 0
	}
	panes, err := c.Panes(ctx, srv)
	if err != nil {
		return 0
	}
	p, ok := panes[m.TmuxPaneID]
	want := m.AgentID
	if c.servers[srv.String()].safe {
		want = tmux.SafeAgent(want)
	}
	if !ok || p.Agent != want || p.Dead {
		return 0
	}
	return p.PID
}
