package testutil

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
)

// A test process's paneteam state and config folders are its own, under
// the temp folder, never the person's HOME: for the process (and so every
// program and tmux server it starts), for an in-process run that gives no
// HOME, and for Env; a test that gives a HOME of its own gets them worked
// out from it instead, panes of its tmux server included.
func TestTestFoldersAreNotThePersonsHome(t *testing.T) {
	home := os.Getenv("HOME")
	state, err := provenance.StateDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(state, foldersParent()+string(filepath.Separator)) || strings.HasPrefix(state, home+string(filepath.Separator)) {
		t.Fatalf("the test process's state folder is %s, want one under %s", state, foldersParent())
	}
	if cfg := os.Getenv("XDG_CONFIG_HOME"); !strings.HasPrefix(cfg, testFolders) {
		t.Fatalf("XDG_CONFIG_HOME is %q, want a folder in %s", cfg, testFolders)
	}

	var seen map[string]string
	pt := CLI{Main: func(_ context.Context, inv Invocation) int { seen = inv.Vars; return 0 }}
	pt.Run(t, "status")
	if got, _ := provenance.StateDir(func(k string) string { return seen[k] }); got != state {
		t.Errorf("an in-process run without a HOME uses state folder %s, want the test process's %s", got, state)
	}
	own := t.TempDir()
	pt.With("HOME", own).Run(t, "status")
	if got, _ := provenance.StateDir(func(k string) string { return seen[k] }); got != filepath.Join(own, ".local", "state", "paneteam") {
		t.Errorf("an in-process run with HOME %s uses state folder %s, want that HOME's", own, got)
	}
	pt.With("HOME", own, "PANETEAM_STATE_DIR", "/given").Run(t, "status")
	if seen["PANETEAM_STATE_DIR"] != "/given" {
		t.Errorf("a run's own PANETEAM_STATE_DIR became %q", seen["PANETEAM_STATE_DIR"])
	}

	get := func(env []string) func(string) string {
		return func(k string) string {
			v := ""
			for _, kv := range env {
				if kk, vv, _ := strings.Cut(kv, "="); kk == k {
					v = vv // the last wins, as in exec.Cmd.Env
				}
			}
			return v
		}
	}
	if got, _ := provenance.StateDir(get(Env())); got != state {
		t.Errorf("Env() gives state folder %s, want %s", got, state)
	}
	if got, _ := provenance.StateDir(get(Env("HOME=" + own))); got != filepath.Join(own, ".local", "state", "paneteam") {
		t.Errorf("Env(HOME=%s) gives state folder %s, want that HOME's", own, got)
	}
	// A tmux server a test starts, and so each of its panes.
	srv := TmuxServer(t)
	if out, err := srv.Run(context.Background(), "show-environment", "-g", "PANETEAM_STATE_DIR"); err != nil || strings.TrimSpace(out) != "PANETEAM_STATE_DIR="+state {
		t.Errorf("the test tmux server's environment has %q (%v), want PANETEAM_STATE_DIR=%s", out, err, state)
	}
	SetServerEnv(t, srv, "HOME="+own)
	if out, _ := srv.Run(context.Background(), "show-environment", "-g", "PANETEAM_STATE_DIR"); strings.Contains(out, "=") {
		t.Errorf("after a HOME of the test's own the server has %q, want it unset", out)
	}

	sets := ServerEnv([]string{"HOME=" + own, "XDG_CONFIG_HOME=" + own + "/c"})
	for _, k := range []string{"PANETEAM_STATE_DIR", "XDG_STATE_HOME"} {
		if !slices.ContainsFunc(sets, func(c []string) bool { return slices.Equal(c, []string{"set-environment", "-gu", k}) }) {
			t.Errorf("ServerEnv with a HOME of the test's own keeps the test process's %s: %q", k, sets)
		}
	}
	if slices.ContainsFunc(sets, func(c []string) bool { return slices.Contains(c, "-gu") && c[2] == "XDG_CONFIG_HOME" }) {
		t.Errorf("ServerEnv unset the XDG_CONFIG_HOME it was given: %q", sets)
	}
}
