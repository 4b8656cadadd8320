package tmux

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusPanesFormatOnARealServer: a real tmux expands the format into
// the panes of its server, with each pane's agent id kept to characters
// that are safe inside sh's single quotes, and the result reads back.
func TestStatusPanesFormatOnARealServer(t *testing.T) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	s := Server{Socket: filepath.Join(t.TempDir(), "s"), Config: "/dev/null", Bin: bin}
	ctx := context.Background()
	if _, err := s.Run(ctx, "new-session", "-d", "-s", "a", "-x", "80", "-y", "20", "sleep 100"); err != nil {
		t.Fatal(err)
	}
	defer s.Run(ctx, "kill-server") //nolint:errcheck
	second, err := s.Run(ctx, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "a", "sleep 100")
	if err != nil {
		t.Fatal(err)
	}
	// A name from config.json can hold anything: the listing must not.
	hostile := "bob' $(touch x); `y`@te am"
	if _, err := s.Run(ctx, "set-option", "-p", "-t", second, AgentOption, hostile); err != nil {
		t.Fatal(err)
	}
	out, err := s.Run(ctx, "display-message", "-p", StatusPanesFormat)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out, "'`$;()\"\\") {
		t.Errorf("the expanded listing %q holds characters sh would read", out)
	}
	panes, err := ParseStatusPanes(out)
	if err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if len(panes) != 2 || panes[second].Agent != SafeAgent(hostile) || panes[second].Agent != "bobtouchxy@team" || panes[second].Dead {
		t.Errorf("read %+v from %q", panes, out)
	}
}

func TestParseStatusPanes(t *testing.T) {
	panes, err := ParseStatusPanes("%0:0: %3:1:bob@t %3:1:bob@t \n")
	if err != nil || len(panes) != 2 || !panes["%3"].Dead || panes["%3"].Agent != "bob@t" || panes["%0"].Dead {
		t.Errorf("got %+v, %v", panes, err)
	}
	for _, bad := range []string{"%x:0:a", "3:0:a", "%3:2:a", "%3", "%3:0"} {
		if _, err := ParseStatusPanes(bad); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
	if panes, err := ParseStatusPanes(""); err != nil || len(panes) != 0 {
		t.Errorf("an empty listing: %v %v", panes, err)
	}
}
