package tmux_test

import (
	"os"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// bareLocale makes tmux clients run as under cron's `env -i`: none of
// LC_ALL, LC_CTYPE, LANG set (tmux then prints "_" for control and
// non-ASCII bytes unless told otherwise).
func bareLocale(t *testing.T) {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		t.Setenv(k, "") // restores the old value when the test ends
		os.Unsetenv(k)
	}
}

// TestPanesWithoutLocale lists panes whose title, session name and agent
// option hold the separator, its escapes, a newline, a tab, \x1f and
// non-ASCII text, from a client with no locale: every field comes back
// exactly as set.
func TestPanesWithoutLocale(t *testing.T) {
	bareLocale(t)
	srv := testutil.TmuxServer(t)
	ctx := ctxT(t)
	const session = "sess|~p%7C ünï"
	if _, err := srv.Run(ctx, "new-session", "-d", "-s", session, "sleep", "600"); err != nil {
		t.Fatal(err)
	}
	ps, err := srv.SessionPanes(ctx, "="+session)
	if err != nil || len(ps) != 1 {
		t.Fatalf("SessionPanes: %v, %v", ps, err)
	}
	pane := ps[0].ID
	title := "bøb | 100%25 ~t~ 🙂"
	agent := "a\x1fb\tc\nd|é%0A~n@t"
	if _, err := srv.Run(ctx, "select-pane", "-t", pane, "-T", title); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "set-option", "-p", "-t", pane, "@paneteam-agent", agent); err != nil {
		t.Fatal(err)
	}
	all, err := srv.AllPanes(ctx)
	if err != nil {
		t.Fatalf("AllPanes without a locale: %v", err)
	}
	var found bool
	for _, p := range all {
		if p.ID != pane {
			continue
		}
		found = true
		if p.Session != session || p.Title != title || p.Agent != agent || p.Width <= 0 || p.PID <= 0 {
			t.Errorf("pane read back as session %q title %q agent %q (%+v)\nwant session %q title %q agent %q", p.Session, p.Title, p.Agent, p, session, title, agent)
		}
	}
	if !found {
		t.Fatalf("pane %s missing from %+v", pane, all)
	}
	got, err := srv.Display(ctx, pane, "pane_title", "@paneteam-agent")
	if err != nil || got[0] != title || got[1] != agent {
		t.Fatalf("Display = %q, %v; want %q, %q", got, err, title, agent)
	}
}
