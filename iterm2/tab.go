package iterm2

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// NewTab opens a tab in the window with that id (a session's window_id
// in 'session list --json'; "" is the current window) and returns the
// session it holds. 'it2 tab new' prints "Created new tab: <tab id>",
// not a session id (it2's src/it2/commands/tab.py), so the session is
// found by its tab_id in the session list.
func (c Client) NewTab(ctx context.Context, window string) (string, error) {
	args := []string{"tab", "new"}
	if window != "" {
		args = append(args, "-w", window)
	}
	out, err := c.run(ctx, args...)
	if err != nil {
		return "", err
	}
	m := createdTabRE().FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("it2 tab new: no tab id in its output %q", out)
	}
	ss, err := c.Sessions(ctx)
	if err != nil {
		return "", fmt.Errorf("find the session of the new tab %s: %w", m[1], err)
	}
	for _, s := range ss {
		if string(s.TabID) == m[1] && ValidID(s.ID) {
			return s.ID, nil
		}
	}
	return "", fmt.Errorf("it2 tab new made tab %s, but no session of it is listed", m[1])
}

var createdTabRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Created new tab: (\S+)`) })

// WindowOf returns the window id of the session with that id, or "" when
// it is not listed.
func (c Client) WindowOf(ctx context.Context, id string) (string, error) {
	ss, err := c.Sessions(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range ss {
		if strings.EqualFold(s.ID, id) {
			return string(s.WindowID), nil
		}
	}
	return "", nil
}
