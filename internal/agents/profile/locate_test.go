package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The program is looked up on the PATH given, not this process's, and a
// missing one is refused with the profile's install line.
func TestLocate(t *testing.T) {
	p := &Profile{Name: "myagent", Title: "My Agent", Program: "myagent", Install: "npm i -g myagent"}
	dir := t.TempDir()
	bin := filepath.Join(dir, "myagent")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "/nonexistent")
	got, err := p.Locate("/nowhere" + string(os.PathListSeparator) + dir)
	if err != nil || got != bin {
		t.Fatalf("Locate on the given PATH = %q, %v; want %s", got, err, bin)
	}
	_, err = p.Locate(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "My Agent (myagent) is not installed") || !strings.Contains(err.Error(), "'npm i -g myagent'") {
		t.Fatalf("Locate without the program: %v; want the install line", err)
	}
	p.Program = bin
	if got, err := p.Locate(""); err != nil || got != bin {
		t.Fatalf("Locate of a path = %q, %v; want it as it is", got, err)
	}
}
