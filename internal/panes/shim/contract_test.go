package shim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
)

func readDocContract(t *testing.T) Contract {
	t.Helper()
	return readDocContractOf(t, "2.1.330")
}

func readDocContractOf(t *testing.T, release string) Contract {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "docs", "CLAUDE-TMUX.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := ReadContracts(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Release == release {
			return c
		}
	}
	t.Fatalf("docs/CLAUDE-TMUX.md has no contract for %s (%d contracts)", release, len(cs))
	return Contract{}
}

// TestContractOfTheTestedRelease: the release paneteam says it was tested
// with has a contract, which 'paneteam claude --check' and the shim's
// refusals compare against; 2.1.332 makes the calls 2.1.330 makes
// (recorded: docs/claude-tmux-calls/), so it allows the same calls.
func TestContractOfTheTestedRelease(t *testing.T) {
	c := readDocContractOf(t, claudeversion.Tested.String())
	for _, argv := range seen {
		if _, ok := c.Match(argv); !ok {
			t.Errorf("the %s contract does not allow %q", c.Release, argv)
		}
	}
	for _, argv := range unseen {
		if p, ok := c.Match(argv); ok {
			t.Errorf("the %s contract allows %q (by %q)", c.Release, argv, p.Text)
		}
	}
}

// TestReadContractsSharedBlock: one block names several releases, each a
// contract of its own; an unclosed block is an error, not a contract
// that silently ends the file.
func TestReadContractsSharedBlock(t *testing.T) {
	cs, err := ReadContracts(strings.NewReader("x\n```contract 1.0.0 1.0.1\n-V\n```\n```contract 2.0.0\nkill-server\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%s:%d", c.Release, len(c.Patterns)))
	}
	if strings.Join(got, " ") != "1.0.0:1 1.0.1:1 2.0.0:1" {
		t.Errorf("contracts %v, want 1.0.0:1 1.0.1:1 2.0.0:1", got)
	}
	if _, ok := cs[1].Match([]string{"-V"}); !ok {
		t.Error("the second release of a shared block does not allow its calls")
	}
	if _, err := ReadContracts(strings.NewReader("```contract 1.0.0\n-V\n")); err == nil {
		t.Error("an unclosed contract block was read without an error")
	}
}

// Calls Claude Code 2.1.330 was seen making (its lead and its screen
// code), and calls it does not make.
var (
	seen = [][]string{
		{"-V"},
		{"show", "-gv", "focus-events"},
		{"display-message", "-p", "#{client_control_mode}"},
		{"display-message", "-p", "-t", "%0", "#{client_termtype}\t#{allow-passthrough}"},
		{"-S", "/tmp/s", "display-message", "-t", "%0", "-p", "#{window_id}"},
		{"-S", "/tmp/s", "split-window", "-d", "-t", "%0", "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat"},
		{"-S", "/tmp/s", "split-window", "-d", "-t", "%1", "-v", "-P", "-F", "#{pane_id}", "--", "cat"},
		{"-S", "/tmp/s", "set-option", "-p", "-t", "%1", "window-style", "bg=default,fg=blue"},
		{"-S", "/tmp/s", "set-option", "-p", "-t", "%1", "pane-border-format", "#[fg=blue,bold] #{pane_title} #[default]"},
		{"-S", "/tmp/s", "select-pane", "-t", "%1", "-T", "dora"},
		{"-S", "/tmp/s", "list-panes", "-t", "@0", "-F", "#{pane_id}"},
		{"-S", "/tmp/s", "set-option", "-w", "-t", "@0", "pane-border-status", "top"},
		{"-S", "/tmp/s", "select-layout", "-t", "@0", "main-vertical"},
		{"-S", "/tmp/s", "resize-pane", "-t", "%0", "-x", "30%"},
		{"-S", "/tmp/s", "respawn-pane", "-k", "-t", "%1", "--", "cd /p && env A=1 claude --agent-id dora@panes"},
		{"-S", "/tmp/s", "kill-pane", "-t", "%2"},
		{"-L", "claude-swarm-42", "has-session", "-t", "claude-swarm"},
		{"-L", "claude-swarm-42", "new-session", "-d", "-s", "claude-swarm", "-n", "swarm-view", "-P", "-F", "#{pane_id}", "--", "cat"},
		{"-L", "claude-swarm-42", "list-windows", "-t", "claude-swarm", "-F", "#{window_name}"},
		{"-L", "claude-swarm-42", "list-panes", "-t", "claude-swarm:swarm-view", "-F", "#{pane_id}"},
		{"-L", "claude-swarm-42", "select-layout", "-t", "claude-swarm:swarm-view", "tiled"},
	}
	unseen = [][]string{
		{"-S", "/tmp/s", "kill-server"},
		{"-S", "/tmp/s", "split-window", "-d", "-t", "%0", "-h", "-P", "-F", "#{pane_id}", "--", "bash"},
		{"-S", "/tmp/s", "split-window", "-d", "-t", "%0", "-h", "-l", "70", "-P", "-F", "#{pane_id}", "--", "cat"},
		{"-L", "other", "has-session", "-t", "claude-swarm"},
		{"-S", "/tmp/s", "send-keys", "-t", "%1", "claude", "Enter"},
		{"-S", "/tmp/s", "kill-pane", "-t", "%2", "extra"},
	}
)

func TestContractMatchesSeenCalls(t *testing.T) {
	c := readDocContract(t)
	for _, argv := range seen {
		if _, ok := c.Match(argv); !ok {
			t.Errorf("the contract does not allow %q, which Claude Code 2.1.330 makes", argv)
		}
	}
	for _, argv := range unseen {
		if p, ok := c.Match(argv); ok {
			t.Errorf("the contract allows %q (by %q), which Claude Code 2.1.330 does not make", argv, p.Text)
		}
	}
}

// TestShimKnowsTheContract: every call of the contract addressed to the
// lead's server is one the shim interprets, not one it refuses.
func TestShimKnowsTheContract(t *testing.T) {
	c := readDocContract(t)
	sample := strings.NewReplacer("<server>", "-S /tmp/s", "<pane>", "%1", "<window>", "@0", "<percent>", "30%", "<any>", "x")
	for _, p := range c.Patterns {
		if !strings.HasPrefix(p.Text, "<server>") {
			continue
		}
		line := p.Text
		// One instance of each alternative and of each optional group.
		for strings.Contains(line, "(") {
			i, j := strings.Index(line, "("), strings.Index(line, ")")
			line = line[:i] + strings.Split(line[i+1:j], "|")[0] + line[j+1:]
		}
		for _, v := range []string{strings.NewReplacer("[", "", "]", "").Replace(line), dropOptional(line)} {
			argv := strings.Fields(sample.Replace(v))
			if !p.Match(argv) {
				t.Fatalf("sample %q does not match its own pattern %q", argv, p.Text)
			}
			call, err := Parse(argv)
			if err != nil {
				t.Errorf("the shim cannot read %q (contract %q): %v", argv, p.Text, err)
				continue
			}
			if why := check(call); why != "" {
				t.Errorf("the shim refuses %q (contract %q): %s", argv, p.Text, why)
			}
		}
	}
}

func dropOptional(s string) string {
	for strings.Contains(s, "[") {
		i, j := strings.Index(s, "["), strings.Index(s, "]")
		s = s[:i] + s[j+1:]
	}
	return s
}

func TestCompileRefuses(t *testing.T) {
	for _, bad := range []string{"<nope> x", "[a", "a]", ""} {
		if _, err := Compile(bad); err == nil {
			t.Errorf("Compile(%q) succeeded", bad)
		}
	}
}
