package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/team"
)

// spawn-pane --agent refuses, before a member row or a pane exists, what
// it cannot start: an unknown profile, a CLI not installed (saying how to
// install it), a permission mode the CLI has no equivalent of, and a
// COMMAND beside --agent.
func TestSpawnAgentRefusesWhatItCannotStart(t *testing.T) {
	root, vars := ptRootVars(t)
	if _, errs, code := ptRun(t, vars, "", "team-create", "review"); code != 0 {
		t.Fatal(errs)
	}
	bin := t.TempDir()
	vars["PATH"] = bin
	vars["PANETEAM_BACKEND"] = "in-process"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--agent", "nope"}, `no agent profile "nope": use one of codex, gemini, opencode`},
		{[]string{"--agent", "codex"}, "to install OpenAI Codex CLI: npm install -g @openai/codex"},
		{[]string{"--agent", "opencode", "--permission-mode", "auto"}, "has no equivalent for OpenCode: use one of acceptEdits, bypassPermissions, default, plan"},
		{[]string{"--agent", "codex", "--", "vim"}, "give no COMMAND"},
	} {
		args := append([]string{"spawn-pane", "--team", "review", "--name", "coder"}, c.args...)
		_, errs, code := ptRun(t, vars, "", args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want an error saying %q", c.args, code, errs, c.want)
		}
	}
	// With the CLI installed but a mode it cannot map: still refused.
	os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\n"), 0o755)
	if _, errs, code := ptRun(t, vars, "", "spawn-pane", "--team", "review", "--name", "coder", "--agent", "codex", "--permission-mode", "nonsense"); code == 0 {
		t.Errorf("a bad permission mode was accepted: %s", errs)
	}
	_, cfg, err := team.Open(root, "review")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Members) != 1 {
		t.Errorf("members after refused spawns: %v", cfg.MemberNames())
	}
}
