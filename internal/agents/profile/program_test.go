package profile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocateFindsTheProgramOnTheGivenPath(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "fakecli")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &Profile{Name: "fake", Title: "Fake CLI", Program: "fakecli", Install: "npm i -g fakecli"}
	if got, err := p.Locate("/nonexistent:" + dir); err != nil || got != prog {
		t.Errorf("Locate = %q, %v; want %s", got, err, prog)
	}
	_, err := p.Locate(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "Fake CLI (fake) is not installed") || !strings.Contains(err.Error(), "npm i -g fakecli") {
		t.Errorf("Locate on a PATH without it: %v; want the install hint", err)
	}
	// A path is taken as it is, whatever PATH holds.
	p.Program = prog
	if got, err := p.Locate(""); err != nil || got != prog {
		t.Errorf("Locate(%s) = %q, %v", prog, got, err)
	}
}

func TestVersionPrefersThePackageThenAsksTheProgram(t *testing.T) {
	script := filepath.Join(t.TempDir(), "fakecli")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"fakecli v$FAKE_VERSION (build 7)\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &Profile{Program: "fakecli", VersionArgs: []string{"--version"}}
	if v := p.Version(context.Background(), script, []string{"FAKE_VERSION=2.3.4"}); v != "2.3.4" {
		t.Errorf("Version from the program's output = %q, want 2.3.4", v)
	}
	p.VersionArgs = nil
	if v := p.Version(context.Background(), script, nil); v != "" {
		t.Errorf("Version with no version command = %q, want unknown", v)
	}
	// An npm install is read from its package.json, without running it.
	bin := npmTree(t, "fakecli", "0.9.1", "bin/fakecli.js", "fakecli")
	p = &Profile{Program: "fakecli", VersionPackage: "fakecli", VersionArgs: []string{"--version"}}
	if v := p.Version(context.Background(), bin, nil); v != "0.9.1" {
		t.Errorf("Version of an npm install = %q, want 0.9.1", v)
	}
}
