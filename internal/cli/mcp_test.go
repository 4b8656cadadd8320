package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// paneteam mcp runs the paneteam-mcp program beside paneteam; a paneteam
// built under another name (a test binary, a renamed copy) must not take
// itself for the server, or `mcp` would print paneteam's help and exit 0.
func TestMCPServerIsNeverPaneteamItself(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"ptx", "paneteam"} {
		exe := filepath.Join(dir, name)
		testutil.WriteExecutable(t, exe, []byte("#!/bin/sh\nexit 0\n"))
		env := Env{Exe: exe, Vars: map[string]string{"PATH": "/nonexistent"}}
		p, err := mcpServerPath(env)
		if err == nil {
			t.Fatalf("%s alone: the server was found at %s", name, p)
		}
		if !strings.Contains(err.Error(), "go install") {
			t.Errorf("%s alone: the error does not say how to install the server: %v", name, err)
		}
	}
	server := filepath.Join(dir, "paneteam-mcp")
	testutil.WriteExecutable(t, server, []byte("#!/bin/sh\nexit 0\n"))
	if p, err := mcpServerPath(Env{Exe: filepath.Join(dir, "paneteam"), Vars: map[string]string{"PATH": "/nonexistent"}}); err != nil || p != server {
		t.Fatalf("beside paneteam: got %q, %v; want %s", p, err, server)
	}
}
