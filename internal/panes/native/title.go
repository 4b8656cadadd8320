package native

import (
	"context"
	"fmt"
	"strconv"

	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/iterm2"
)

// Titler is a Terminal that can name a pane after it opened it, where the
// person sees it (a pane's title bar, its tab): Claude Code's lead names
// its teammate's pane with select-pane -T once the split is made, as
// tmux panes are titled.
type Titler interface {
	// SetTitle names pane h; tab says the pane is alone in a tab of its
	// own. A pane the terminal cannot name (a WezTerm split, a Zellij
	// older than 0.44.1) is left as it is, and that is no error.
	SetTitle(ctx context.Context, h Handle, title string, tab bool) error
}

// SetTitle names the session ('it2 session set-name'), which iTerm2
// shows in the session's title bar and its tab.
func (t *iterm2Term) SetTitle(ctx context.Context, h Handle, title string, tab bool) error {
	id := string(h)
	if !iterm2.ValidID(id) {
		return fmt.Errorf("name iTerm2 pane %q: not an iTerm2 session id", id)
	}
	if t.lead != "" && id == t.lead {
		return fmt.Errorf("name iTerm2 pane %s: it is the lead's session; paneteam never renames it", id)
	}
	if err := t.call(ctx, func(ctx context.Context) error { return t.it2.SetName(ctx, id, title) }); err != nil {
		return fmt.Errorf("name iTerm2 session %s %q: %w", id, title, err)
	}
	return nil
}

// SetTitle sets the window's title for good (kitty @ set-window-title,
// which a program's own title escapes no longer change), and the tab's
// for a window in a tab of its own.
func (k *kitty) SetTitle(ctx context.Context, h Handle, title string, tab bool) error {
	if err := kittyCheckHandle(h); err != nil {
		return err
	}
	if _, err := k.rc(ctx, "set-window-title", "--match=id:"+string(h), title); err != nil {
		return fmt.Errorf("kitty: name window %s %q: %w", h, title, err)
	}
	if tab {
		if _, err := k.rc(ctx, "set-tab-title", "--match=window_id:"+string(h), title); err != nil {
			return fmt.Errorf("kitty: name the tab of window %s %q: %w", h, title, err)
		}
	}
	return nil
}

// SetTitle names the tab of a pane in a tab of its own (wezterm cli
// set-tab-title); WezTerm's CLI cannot name a pane, so a split is left
// as it is.
func (w *wezterm) SetTitle(ctx context.Context, h Handle, title string, tab bool) error {
	if _, err := strconv.Atoi(string(h)); err != nil {
		return fmt.Errorf("wezterm: %q is not a pane id", h)
	}
	if !tab {
		return nil
	}
	if _, err := w.run(ctx, "cli", "set-tab-title", "--pane-id", string(h), title); err != nil {
		return fmt.Errorf("wezterm: name the tab of pane %s %q: %w", h, title, err)
	}
	return nil
}

// zellijRenameSince is the first Zellij whose rename-pane names a pane
// other than the focused one (--pane-id) and replaces its name rather
// than adding to it.
var zellijRenameSince = [3]int{0, 44, 1}

// SetTitle names the pane (zellij action rename-pane --pane-id), which
// Zellij shows in the pane's frame. Older Zellijs rename only the
// focused pane, which may be the person's: their panes keep the name
// they were opened with.
func (z *zellij) SetTitle(ctx context.Context, h Handle, title string, tab bool) error {
	if _, err := strconv.Atoi(string(h)); err != nil {
		return nil // a pane Zellij gave no id: nothing to name it by
	}
	out, err := program.Output(ctx, program.Cmd{Path: z.bin, Name: "zellij", Args: []string{"--version"}, DefaultTimeout: zellijCallTimeout})
	if err != nil {
		return fmt.Errorf("zellij: name pane %s: %w", h, err)
	}
	v, err := parseVersion("zellij", out)
	if err != nil {
		return fmt.Errorf("zellij: name pane %s: %w", h, err)
	}
	if !versionAtLeast(v, zellijRenameSince) {
		return nil
	}
	if _, err := z.run(ctx, "action", "rename-pane", "--pane-id", string(h), title); err != nil {
		return fmt.Errorf("zellij: name pane %s %q: %w", h, title, err)
	}
	return nil
}
