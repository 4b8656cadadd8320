package tmux

import (
	"context"
	"fmt"
	"strings"
)

// Screen returns what pane shows now, as text: capture-pane -p without
// -e, so the pane's colours and every other escape sequence stay in tmux
// (tmux(1) "capture-pane": -e is what would include them), and without -J,
// so lines stay as wide as the pane. Trailing blank lines are dropped.
func (s Server) Screen(ctx context.Context, pane string) (string, error) {
	out, err := s.Run(ctx, "capture-pane", "-p", "-t", pane)
	if err != nil {
		return "", fmt.Errorf("read pane %s's screen: %w", pane, err)
	}
	return strings.TrimRight(out, "\n "), nil
}

// SendKey presses one key in pane, named as tmux names keys (tmux(1) "KEY
// BINDINGS": Enter, Escape, Up, BTab, ...). The caller chooses key from a
// list of its own: a name tmux does not know is typed as its letters.
func (s Server) SendKey(ctx context.Context, pane, key string) error {
	if _, err := s.Run(ctx, "send-keys", "-t", pane, key); err != nil {
		return fmt.Errorf("press %s in pane %s: %w", key, pane, err)
	}
	return nil
}

// SendLiteral types text into pane as it is: send-keys -l takes every
// character as itself, never as a key name, and "--" ends the options, so
// a text starting with "-" is typed too. No shell sees it.
func (s Server) SendLiteral(ctx context.Context, pane, text string) error {
	if _, err := s.Run(ctx, "send-keys", "-t", pane, "-l", "--", text); err != nil {
		return fmt.Errorf("type into pane %s: %w", pane, err)
	}
	return nil
}
