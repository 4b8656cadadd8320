package factory

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paneteam/paneteam/team"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestStateDirAndKeysFollowTheRunsEnvironment(t *testing.T) {
	state := t.TempDir()
	f := New(envOf(map[string]string{"PANETEAM_STATE_DIR": state, "HOME": "/nonexistent"}))
	got, err := f.StateDir()
	if err != nil || got != state {
		t.Fatalf("StateDir = %q, %v; want %q", got, err, state)
	}
	keys, err := f.Keys()
	if err != nil || keys.Dir != filepath.Join(state, "keys") {
		t.Fatalf("Keys = %+v, %v; want the keys folder in %s", keys, err, state)
	}
	if f.Signer() == nil {
		t.Fatal("Signer is nil with a state folder")
	}
	home := New(envOf(map[string]string{"HOME": "/home/p"}))
	if got, _ := home.StateDir(); got != "/home/p/.local/state/paneteam" {
		t.Fatalf("StateDir from HOME = %q", got)
	}
}

func TestRootPrefersTheExplicitFolder(t *testing.T) {
	f := New(envOf(map[string]string{"CLAUDE_CONFIG_DIR": "/cfg", "HOME": "/home/p"}))
	if got, _ := f.Root(""); got != "/cfg" {
		t.Fatalf("Root(\"\") = %q, want $CLAUDE_CONFIG_DIR", got)
	}
	if got, _ := f.Root("/given"); got != "/given" {
		t.Fatalf("Root(/given) = %q", got)
	}
}

// A command that reads its team in several steps reads config.json once:
// a change made on disk in between is not seen by the same run.
func TestTeamIsOpenedOncePerRun(t *testing.T) {
	root := t.TempDir()
	if _, _, err := team.Create(root, "Review", team.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := New(envOf(nil))
	_, first, err := f.Team(root, "Review")
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(root, "teams", "review", "config.json")
	if err := os.WriteFile(cfgPath, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, again, err := f.Team(root, "review")
	if err != nil || again != first {
		t.Fatalf("second Team = %p, %v; want the first reading %p", again, err, first)
	}
	if _, _, err := New(envOf(nil)).Team(root, "Review"); err == nil {
		t.Fatal("a new run read the broken config.json without an error")
	}
}
