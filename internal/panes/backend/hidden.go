package backend

import (
	"context"
	"fmt"
	"slices"

	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// PaneMover is a backend that can take a pane out of sight and back
// (tmux: a hidden session).
type PaneMover interface {
	Hide(ctx context.Context, cfg *team.Config, m *team.Member) error
	Show(ctx context.Context, cfg *team.Config, m *team.Member, pol layout.Policy) error
}

// Hidden reports whether m's pane is recorded in config.json's
// hiddenPaneIds.
func Hidden(cfg *team.Config, m *team.Member) bool {
	return m.TmuxPaneID != "" && slices.Contains(cfg.HiddenPaneIDs, m.TmuxPaneID)
}

// ShowLayout decides the layout a shown pane goes back into, and whether
// that layout is to be kept for the team (backend.KeepLayout).
type ShowLayout func(cfg *team.Config) (pol layout.Policy, keep bool, err error)

// SetHidden hides (hide) or shows the named member's pane and records it
// in hiddenPaneIds, as 'paneteam hide' and 'paneteam show' do; a shown
// pane goes back into the layout show decides (nil: the team's kept one).
func SetHidden(ctx context.Context, env Env, t team.Team, lock lockfile.Options, name string, hide bool, show ShowLayout) error {
	cfg, err := team.Load(t.ConfigPath())
	if err != nil {
		return err
	}
	m := cfg.Member(name)
	if m == nil {
		return fmt.Errorf("%q is not a member of team %s", name, t.Name)
	}
	b, err := ForMember(env, cfg, m)
	if err != nil {
		return err
	}
	mv, ok := b.(PaneMover)
	if !ok {
		return fmt.Errorf("%s runs on the %s backend, which has no panes to hide or show", m.Name, b.Name())
	}
	pol, keep := TeamLayout(cfg), false
	if hide {
		err = mv.Hide(ctx, cfg, m)
	} else {
		if show != nil {
			if pol, keep, err = show(cfg); err != nil {
				return err
			}
		}
		err = mv.Show(ctx, cfg, m, pol)
	}
	if err != nil {
		return err
	}
	_, err = t.Update(ctx, lock, func(cur *team.Config) error {
		had := slices.Contains(cur.HiddenPaneIDs, m.TmuxPaneID)
		if keep {
			KeepLayout(cur, pol)
		}
		switch {
		case hide && !had:
			cur.HiddenPaneIDs = append(cur.HiddenPaneIDs, m.TmuxPaneID)
		case !hide && had:
			cur.HiddenPaneIDs = slices.DeleteFunc(cur.HiddenPaneIDs, func(id string) bool { return id == m.TmuxPaneID })
		case !keep:
			return team.ErrNoChange
		}
		return nil
	})
	return err
}
