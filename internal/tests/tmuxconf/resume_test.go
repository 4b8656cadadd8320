package tmuxconf

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// TestTPMPluginResumesAfterRestore: with @paneteam-resume-after-restore
// on, the plugin chains 'paneteam resume --all' after the
// post-restore-all hook the person set (once, however often the plugin
// runs). A stand-in for tmux-resurrect fires the hook as resurrect does
// (eval of the option's value, in a run-shell of the restored server):
// the person's command runs first, then a team whose lead and private
// server died comes back on paneteam's own server, its teammate started
// with the PATH it was started with, not the hook's; no pane is added to
// the restored server, which now leads the team.
func TestTPMPluginResumesAfterRestore(t *testing.T) {
	requireTPM(t)
	earlier := ""
	h := startWith(t, func(h *harness) string {
		earlier = filepath.Join(h.work, "earlier")
		return tpmHome(t, h.work, "set -g @resurrect-hook-post-restore-all 'echo restored >> "+earlier+"'\n"+
			"set -g @paneteam-resume-after-restore 'on'\n")
	})
	hook := strings.TrimSpace(h.inner("show-option", "-gqv", "@resurrect-hook-post-restore-all"))
	h.inner("run-shell", filepath.Join(h.work, ".tmux", "plugins", "paneteam", "paneteam.tmux"))
	if again := strings.TrimSpace(h.inner("show-option", "-gqv", "@resurrect-hook-post-restore-all")); again != hook ||
		!strings.HasPrefix(hook, "echo restored >> ") || strings.Count(hook, "resume --all") != 1 {
		t.Fatalf("the hook after the plugin ran twice: %q (first %q); want the person's command, then resume --all once", again, hook)
	}

	// A team paneteam led from outside tmux, whose lead and private server
	// then died (a reboot), its teammate found on a PATH of its own.
	tools := t.TempDir()
	testutil.WriteExecutable(t, filepath.Join(tools, "worker"), []byte("#!/bin/sh\necho \"started $PANETEAM_AGENT\" >> \"$1\"\nexec sleep 600\n"))
	marks := filepath.Join(t.TempDir(), "marks")
	lead := exec.Command("sleep", "600")
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	env := testutil.Env("PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH"), "PANETEAM_ROOT="+h.root, "HOME="+h.work,
		"TMUX_TMPDIR="+testutil.ShortTempDir(t))
	run(t, h.work, env, h.bin, "team-create", "gone", "--leader-pid", strconv.Itoa(lead.Process.Pid))
	run(t, h.work, env, h.bin, "spawn-pane", "--team", "gone", "--name", "worker", "--", "worker", marks)
	testutil.Eventually(t, 10*time.Second, "the worker to start", func() bool { return count(marks, "started worker") == 1 })
	_, cfg, err := team.Open(h.root, "gone")
	if err != nil {
		t.Fatal(err)
	}
	exec.Command("tmux", "-S", cfg.Paneteam.TmuxSocket, "kill-server").Run()
	lead.Process.Kill()
	lead.Wait()
	panesBefore := strings.Count(h.inner("list-panes", "-a"), "\n")

	h.inner("run-shell", `eval "$(tmux show-option -gqv @resurrect-hook-post-restore-all)"`)
	testutil.Eventually(t, 20*time.Second, "the worker to start again", func() bool { return count(marks, "started worker") == 2 })
	if b, _ := os.ReadFile(earlier); string(b) != "restored\n" {
		t.Errorf("the person's own hook wrote %q, want it run once", b)
	}
	if n := strings.Count(h.inner("list-panes", "-a"), "\n"); n != panesBefore {
		t.Errorf("the restored server has %d panes after the hook, %d before: resume must not add to what resurrect restored", n, panesBefore)
	}
	_, cfg, err = team.Open(h.root, "gone")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", cfg.Paneteam.TmuxSocket, "kill-server").Run() })
	server := strings.TrimSpace(h.inner("display-message", "-p", "#{pid}"))
	if l := team.LeadOf(cfg); l.State != team.LeadAlive || strconv.FormatInt(l.PID, 10) != server {
		t.Errorf("the team's lead after the hook: %+v, want the tmux server %s", l, server)
	}
}

func count(file, s string) int {
	b, _ := os.ReadFile(file)
	return strings.Count(string(b), s)
}
