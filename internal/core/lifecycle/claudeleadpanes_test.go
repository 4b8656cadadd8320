package lifecycle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// Panes paneteam's tmux made for a Claude Code lead ('paneteam claude')
// are closed once that lead is gone, and only then; nobody else's pane is
// touched.
func TestReapClosesPanesOfGoneClaudeLeads(t *testing.T) {
	dir := socketDir(t)
	srv := startServer(t, filepath.Join(dir, "work"))
	ctx := context.Background()
	newPane := func(tag string) string {
		out, err := srv.Run(ctx, "new-window", "-d", "-t", "s:", "-P", "-F", "#{pane_id}", "--", "sleep", "600")
		if err != nil {
			t.Fatal(err)
		}
		if tag != "" {
			if _, err := srv.Run(ctx, "set-option", "-p", "-t", out, tmux.ClaudeLeadOption, tag); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	start, _ := proc.StartTime(os.Getpid())
	dead := newPane(fmt.Sprintf("%d:%s", deadPID(t), "12345"))
	reused := newPane(fmt.Sprintf("%d:%s", os.Getpid(), start+"0")) // this pid, another process's start
	live := newPane(fmt.Sprintf("%d:%s", os.Getpid(), start))
	unreadable := newPane("not-a-pid")
	plain := newPane("")
	// As run from inside that tmux server, by its $TMUX.
	o := Options{Backend: backend.Env{Getenv: func(k string) string {
		if k == "TMUX" {
			return srv.Socket + ",1,0"
		}
		return ""
	}}}
	res, err := o.Reap(ctx, testutil.Root(t), ReapOptions{DryRun: true, SocketDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := paneIDs(res); got != dead+" "+reused {
		t.Errorf("dry run plans to close %q, want %q", got, dead+" "+reused)
	}
	res, err = o.Reap(ctx, testutil.Root(t), ReapOptions{SocketDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Panes {
		if !p.Closed || !strings.Contains(p.Why, "Claude Code lead") {
			t.Errorf("pane %+v not closed", p)
		}
	}
	out, _ := srv.Run(ctx, "list-panes", "-a", "-F", "#{pane_id}")
	left := strings.Fields(out)
	for _, id := range []string{live, unreadable, plain} {
		if !contains(left, id) {
			t.Errorf("pane %s was closed: a live lead's, an unreadable mark, or no mark", id)
		}
	}
	for _, id := range []string{dead, reused} {
		if contains(left, id) {
			t.Errorf("pane %s of a gone lead is still open", id)
		}
	}
}

func paneIDs(r *ReapResult) string {
	var ids []string
	for _, p := range r.Panes {
		ids = append(ids, p.Pane)
	}
	return strings.Join(ids, " ")
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
