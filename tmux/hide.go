package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/layout"
)

// HiddenSession holds the panes of hidden teammates: they keep running
// there, out of sight, until shown again (Claude Code uses a session
// "claude-hidden" the same way).
const HiddenSession = "paneteam-hidden"

// Hide moves pane into a window of its own in HiddenSession (break-pane
// -d), creating the session when needed.
func (s Server) Hide(ctx context.Context, pane string) error {
	if err := s.ensureHidden(ctx); err != nil {
		return err
	}
	_, err := s.Run(ctx, "break-pane", "-d", "-s", pane, "-t", HiddenSession+":")
	if err != nil {
		return fmt.Errorf("hide pane %s: %w", pane, err)
	}
	return nil
}

// ensureHidden creates HiddenSession, whose first window holds only a
// placeholder: a session cannot exist without a window.
func (s Server) ensureHidden(ctx context.Context) error {
	_, err := s.Run(ctx, "has-session", "-t", "="+HiddenSession)
	if err == nil {
		return nil
	}
	if !errors.Is(err, ErrNoSession) {
		return err
	}
	_, err = s.NewSession(ctx, HiddenSession, Command{Argv: Placeholder}, 80, 24)
	if err != nil && !strings.Contains(err.Error(), "duplicate session") {
		return fmt.Errorf("create the session for hidden panes: %w", err)
	}
	return nil
}

// Join moves pane (from wherever it is) into the window of sp.Target, as
// sp says, without taking the focus; then drops HiddenSession when no
// hidden pane is left in it.
func (s Server) Join(ctx context.Context, pane string, sp layout.Split) error {
	dir := "-v"
	if sp.Horizontal {
		dir = "-h"
	}
	args := []string{"join-pane", "-d", dir, "-s", pane, "-t", sp.Target}
	if sp.Percent != 0 {
		args = append(args, "-l", strconv.Itoa(sp.Percent)+"%")
	}
	if _, err := s.Run(ctx, args...); err != nil {
		return fmt.Errorf("show pane %s: %w", pane, err)
	}
	return s.dropHiddenIfEmpty(ctx)
}

func (s Server) dropHiddenIfEmpty(ctx context.Context) error {
	panes, err := s.SessionPanes(ctx, "="+HiddenSession)
	if errors.Is(err, ErrNoSession) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, p := range panes {
		if p.Agent != "" {
			return nil
		}
	}
	_, err = s.Run(ctx, "kill-session", "-t", "="+HiddenSession)
	if errors.Is(err, ErrNoSession) {
		return nil
	}
	return err
}

// KillPane kills pane; a pane or server already gone is success.
func (s Server) KillPane(ctx context.Context, pane string) error {
	_, err := s.Run(ctx, "kill-pane", "-t", pane)
	if errors.Is(err, ErrPaneNotFound) || errors.Is(err, ErrNoServer) {
		return nil
	}
	return err
}
