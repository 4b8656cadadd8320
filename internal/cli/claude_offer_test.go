package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type claudeDryRun struct {
	Argv    []string          `json:"argv"`
	Env     map[string]string `json:"env"`
	Notes   []string          `json:"notes"`
	Offered []string          `json:"offered"`
}

// agentsArg is the --agents value Claude would get ("" for none).
func (d claudeDryRun) agentsArg() string {
	if i := slices.Index(d.Argv, "--agents"); i >= 0 && i+1 < len(d.Argv) {
		return d.Argv[i+1]
	}
	return ""
}

// TestClaudeOffersInstalledCLIs: 'paneteam claude' offers Claude's lead an
// agent type per installed agent CLI, or those --offer or claude.json
// name; the person's own --agents and CLAUDE_CODE_TEAMMATE_COMMAND are
// kept.
func TestClaudeOffersInstalledCLIs(t *testing.T) {
	bin := t.TempDir()
	for _, p := range []string{"claude", "codex", "gemini", "my-teammate"} {
		if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := t.TempDir()
	vars := map[string]string{"PATH": bin + ":/usr/bin:/bin", "HOME": t.TempDir(), "XDG_CONFIG_HOME": config,
		"PANETEAM_STATE_DIR": t.TempDir()}
	run := func(t *testing.T, vars map[string]string, args ...string) claudeDryRun {
		t.Helper()
		out, errs, code := ptRun(t, vars, "", append([]string{"claude", "--dry-run", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("claude %v: exit %d\n%s", args, code, errs)
		}
		var d claudeDryRun
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return d
	}

	d := run(t, vars)
	var types map[string]struct{ Description, Prompt string }
	if err := json.Unmarshal([]byte(d.agentsArg()), &types); err != nil || !slices.Equal(d.Offered, []string{"codex", "gemini"}) ||
		len(types) != 2 || !strings.Contains(types["codex"].Description, "Codex") {
		t.Fatalf("installed codex and gemini: offered %v, --agents %q (%v)", d.Offered, d.agentsArg(), err)
	}
	link := d.Env["CLAUDE_CODE_TEAMMATE_COMMAND"]
	if filepath.Base(link) != "paneteam-teammate" {
		t.Fatalf("Claude's teammate program is %q, want paneteam's router", link)
	}
	var rc struct {
		Claude  string   `json:"claude"`
		Offered []string `json:"offered"`
	}
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(link), "router.json"))
	if json.Unmarshal(b, &rc) != nil || rc.Claude != filepath.Join(bin, "claude") || !slices.Equal(rc.Offered, []string{"codex", "gemini"}) {
		t.Errorf("the router's setup: %s", b)
	}

	if d := run(t, vars, "--offer", "codex"); !slices.Equal(d.Offered, []string{"codex"}) || strings.Contains(d.agentsArg(), "gemini") {
		t.Errorf("--offer codex: offered %v, --agents %q", d.Offered, d.agentsArg())
	}
	if d := run(t, vars, "--offer", "none"); len(d.Offered) != 0 || d.agentsArg() != "" {
		t.Errorf("--offer none: offered %v, --agents %q", d.Offered, d.agentsArg())
	}
	if _, errs, code := ptRun(t, vars, "", "claude", "--dry-run", "--offer", "nope"); code != ExitUsage || !strings.Contains(errs, "codex, gemini, opencode") {
		t.Errorf("--offer nope: exit %d, %s", code, errs)
	}

	// The config folder's claude.json names an uninstalled CLI: nothing
	// is offered, and the note says why and how to install it.
	os.MkdirAll(filepath.Join(config, "paneteam"), 0o700)
	os.WriteFile(filepath.Join(config, "paneteam", "claude.json"), []byte(`{"offer": ["opencode"]}`), 0o600)
	if d := run(t, vars); len(d.Offered) != 0 || !strings.Contains(strings.Join(d.Notes, "\n"), "OpenCode is not installed") {
		t.Errorf("claude.json offering OpenCode: offered %v, notes %v", d.Offered, d.Notes)
	}
	os.Remove(filepath.Join(config, "paneteam", "claude.json"))

	// The person's own teammate program and agent types stay theirs.
	// Claude runs the variable through a shell, which searches PATH: the
	// router is given the program it finds.
	own := map[string]string{"CLAUDE_CODE_TEAMMATE_COMMAND": "my-teammate"}
	for k, v := range vars {
		own[k] = v
	}
	d = run(t, own, "--", "--agents", `{"codex":{"description":"my codex","prompt":"p"},"rev":{"description":"r","prompt":"q"}}`)
	b, _ = os.ReadFile(filepath.Join(filepath.Dir(d.Env["CLAUDE_CODE_TEAMMATE_COMMAND"]), "router.json"))
	if json.Unmarshal(b, &rc) != nil || rc.Claude != filepath.Join(bin, "my-teammate") || !slices.Equal(rc.Offered, []string{"gemini"}) {
		t.Errorf("with the person's own teammate program and codex type, the router's setup: %s", b)
	}
	// A relative path is made absolute: the router runs it from the
	// teammate's folder, not the lead's.
	own["CLAUDE_CODE_TEAMMATE_COMMAND"] = "../../scripts/claude-release"
	rel := run(t, own)
	b, _ = os.ReadFile(filepath.Join(filepath.Dir(rel.Env["CLAUDE_CODE_TEAMMATE_COMMAND"]), "router.json"))
	if abs, _ := filepath.Abs("../../scripts/claude-release"); json.Unmarshal(b, &rc) != nil || rc.Claude != abs {
		t.Errorf("with a relative teammate program, the router's setup: %s", b)
	}
	// One that is not there, or is no program (the router could not
	// exec it), is said at start, not in every teammate's pane.
	for _, bad := range []string{"no-such-teammate", "./claude.go"} {
		own["CLAUDE_CODE_TEAMMATE_COMMAND"] = bad
		if _, errs, code := ptRun(t, own, "", "claude", "--dry-run"); code == 0 || !strings.Contains(errs, bad) || !strings.Contains(errs, "full path") {
			t.Errorf("a teammate program %s that is not one: exit %d, %s", bad, code, errs)
		}
	}
	if a := d.agentsArg(); !strings.Contains(a, "my codex") || !strings.Contains(a, `"rev"`) || !strings.Contains(a, `"gemini"`) ||
		strings.Count(strings.Join(d.Argv, " "), "--agents") != 1 || !strings.Contains(strings.Join(d.Notes, "\n"), `defines "codex"`) {
		t.Errorf("merged --agents %q, argv %q, notes %v", a, d.Argv, d.Notes)
	}
}
