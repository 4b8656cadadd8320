package backend

import (
	"context"
	"errors"
	"fmt"

	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// memberServer is the server a member's pane lives on, as paneteam
// recorded it when it made the pane. A member without that record was
// not started by paneteam, and its pane is not paneteam's to touch.
//
// Every field here comes from config.json, which a teammate (on another
// host too) can rewrite, so ownership is proven on the pane itself: it
// must carry, in @paneteam-agent, the agent id the member's name and
// team make. A pane paneteam did not make carries none, and an empty or
// foreign agentId in config.json is refused rather than matched.
func memberServer(cfg *team.Config, m *team.Member) (tmux.Server, error) {
	if m.Paneteam == nil || m.Paneteam.TmuxSocket == "" || m.TmuxPaneID == "" {
		return tmux.Server{}, fmt.Errorf("member %s has no pane paneteam started (tmuxPaneId %q): leaving it alone", m.Name, m.TmuxPaneID)
	}
	if m.AgentID == "" || (cfg != nil && m.AgentID != team.AgentID(m.Name, cfg.Name)) {
		return tmux.Server{}, fmt.Errorf("member %s's agentId %q in config.json is not %q, as paneteam made it (the file was changed by something else): leaving pane %s alone", m.Name, m.AgentID, team.AgentID(m.Name, teamName(cfg)), m.TmuxPaneID)
	}
	return tmux.Server{Socket: m.Paneteam.TmuxSocket}, nil
}

// Alive reports whether the member's pane exists, carries its agent id,
// and its command has not exited (Census judges it).
func (b *Tmux) Alive(ctx context.Context, cfg *team.Config, m *team.Member) (bool, error) {
	return NewCensus(b.env).tmuxAlive(ctx, m)
}

// Kill kills the member's pane (only if it carries the member's agent id)
// and re-lays out the window it leaves. A pane or server already gone is
// success.
func (b *Tmux) Kill(ctx context.Context, cfg *team.Config, m *team.Member) error {
	srv, err := memberServer(cfg, m)
	if err != nil {
		return err
	}
	unlock, err := srv.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	p, err := srv.OwnedPane(ctx, m.TmuxPaneID, m.AgentID)
	if errors.Is(err, tmux.ErrPaneNotFound) || errors.Is(err, tmux.ErrNoServer) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := srv.KillPane(ctx, p.ID); err != nil {
		return fmt.Errorf("kill %s's pane: %w", m.Name, err)
	}
	if p.Session == tmux.HiddenSession {
		return nil
	}
	return b.relayout(ctx, srv, cfg, p.WindowID, TeamLayout(cfg))
}

// relayout re-arranges a window after a pane left or joined it.
func (b *Tmux) relayout(ctx context.Context, srv tmux.Server, cfg *team.Config, window string, pol layout.Policy) error {
	panes, err := srv.WindowPanes(ctx, window)
	if errors.Is(err, tmux.ErrPaneNotFound) || errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrNoSession) {
		return nil // the window closed with its last pane
	}
	if err != nil {
		return err
	}
	w := roles(panes, leaderPane(cfg), teamName(cfg))
	return srv.Relayout(ctx, window, layout.After(pol, w))
}

func leaderPane(cfg *team.Config) string {
	if cfg == nil || cfg.Paneteam == nil {
		return ""
	}
	return cfg.Paneteam.LeaderPane
}

// Hide moves the member's pane out of sight into tmux.HiddenSession; the
// command keeps running. The caller records the pane in hiddenPaneIds.
func (b *Tmux) Hide(ctx context.Context, cfg *team.Config, m *team.Member) error {
	srv, p, unlock, err := b.ownedLocked(ctx, cfg, m)
	if err != nil {
		return err
	}
	defer unlock()
	if p.Session == tmux.HiddenSession {
		return nil
	}
	if err := srv.Hide(ctx, p.ID); err != nil {
		return err
	}
	return b.relayout(ctx, srv, cfg, p.WindowID, TeamLayout(cfg))
}

// Show brings a hidden member's pane back beside the lead (or into the
// private session) where a new teammate would go, and re-lays out.
func (b *Tmux) Show(ctx context.Context, cfg *team.Config, m *team.Member, pol layout.Policy) error {
	srv, p, unlock, err := b.ownedLocked(ctx, cfg, m)
	if err != nil {
		return err
	}
	defer unlock()
	if p.Session != tmux.HiddenSession {
		return nil
	}
	target := "=" + PrivateSession
	if lead := leaderPane(cfg); lead != "" && (cfg.Paneteam == nil || !cfg.Paneteam.TmuxPrivate) {
		target = lead
	}
	panes, err := srv.WindowPanes(ctx, target)
	if err != nil {
		return fmt.Errorf("find the window to show %s in (%s): %w", m.Name, target, err)
	}
	w := roles(panes, leaderPane(cfg), teamName(cfg))
	plan, err := layout.Next(pol, w)
	if err != nil {
		return err
	}
	if err := srv.Join(ctx, p.ID, plan.Split); err != nil {
		return err
	}
	return srv.Relayout(ctx, p.ID, plan.Relayout)
}

func (b *Tmux) ownedLocked(ctx context.Context, cfg *team.Config, m *team.Member) (tmux.Server, tmux.Pane, func(), error) {
	srv, err := memberServer(cfg, m)
	if err != nil {
		return srv, tmux.Pane{}, nil, err
	}
	unlock, err := srv.Lock(ctx)
	if err != nil {
		return srv, tmux.Pane{}, nil, err
	}
	p, err := srv.OwnedPane(ctx, m.TmuxPaneID, m.AgentID)
	if errors.Is(err, tmux.ErrNoServer) {
		err = fmt.Errorf("%s's pane %s: the %s is not running (it was stopped, or the machine restarted): %w", m.Name, m.TmuxPaneID, srv, err)
	} else if errors.Is(err, tmux.ErrPaneNotFound) {
		err = fmt.Errorf("%s's pane %s is gone (its command ended or the pane was closed): %w", m.Name, m.TmuxPaneID, err)
	}
	if err != nil {
		unlock()
		return srv, tmux.Pane{}, nil, err
	}
	return srv, p, unlock, nil
}
