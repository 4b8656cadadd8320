package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// readmeBlocks are the code blocks under heading in the README, up to
// the next heading, each without its fences.
func readmeBlocks(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no heading %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for parts := strings.Split(section, "```"); len(parts) > 2; parts = parts[2:] {
		_, body, _ := strings.Cut(parts[1], "\n") // drop the fence's language
		blocks = append(blocks, body)
	}
	return blocks
}

// TestReadmeFiveCommands runs the README's five commands as written, in a
// tmux pane's environment, with stand-ins for aider (a plain program that
// never reads its inbox) and codex (typed into by 'paneteam teammate').
// Its last line must do what it says: shut both down, then clean up.
func TestReadmeFiveCommands(t *testing.T) {
	w := newLCWorld(t)
	blocks := readmeBlocks(t, "## A team in five commands")
	if len(blocks) != 2 {
		t.Fatalf("README's five commands: %d code blocks, want the commands and what the last line prints", len(blocks))
	}
	block, printed := blocks[0], blocks[1]
	bin := t.TempDir()
	if err := os.Symlink(w.bin, filepath.Join(bin, "paneteam")); err != nil {
		t.Fatal(err)
	}
	// aider never looks at its inbox; codex reads what is typed into it.
	testutil.WriteExecutable(t, filepath.Join(bin, "aider"), []byte("#!/bin/sh\nexec sleep 2147483647\n"))
	testutil.WriteExecutable(t, filepath.Join(bin, "codex"), []byte("#!/bin/sh\nwhile read -r line; do echo \"codex read: $line\"; done\n"))
	// A change for 'git diff' to show the critic.
	repo := testutil.GitRepo(t)
	parser := filepath.Join(repo, "parser.go")
	if err := os.WriteFile(parser, []byte("package parser\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "parser")
	if err := exec.Command("git", "-C", repo, "add", "parser.go").Run(); err != nil {
		t.Fatal(err)
	}
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	if err := os.WriteFile(parser, []byte("package parser\n\nfunc Parse() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// The README's block, then what became of the team, for the test.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", block+"\necho \"exit $?\"\necho \"team $team\"\n")
	cmd.Dir = repo
	cmd.Env = testutil.Env(append(append([]string{}, w.vars...), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's commands: %v\n%s", err, out)
	}
	text := string(out)
	if strings.Contains(text, "paneteam: ") || !strings.Contains(text, "\nexit 0\n") {
		t.Fatalf("a command of the README's failed, or the last line did not exit 0:\n%s", text)
	}
	// The last line prints what the README says it prints.
	if !strings.Contains(text, printed) {
		t.Errorf("the last line printed\n%s\nnot what the README shows:\n%s", text, printed)
	}
	_, name, _ := strings.Cut(strings.TrimSpace(text[strings.LastIndex(text, "\nteam "):]), " ")
	if name == "" {
		t.Fatalf("no team name printed:\n%s", text)
	}
	// cleanup ran: the team is gone, and with it every teammate's pane.
	if _, err := os.Stat(team.Team{Root: w.root, Name: name}.ConfigPath()); !os.IsNotExist(err) {
		t.Errorf("team %s still has a config.json after cleanup (%v):\n%s", name, err, text)
	}
	if got := strings.Fields(panes(w.srv)); len(got) != 1 {
		t.Errorf("panes left open after the README's commands: %v", got)
	}
}
