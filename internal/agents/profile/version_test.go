package profile

import (
	"os"
	"path/filepath"
	"testing"
)

// npmTree lays out what npm installs: prefix/node_modules/<pkg> with its
// package.json and program, and the link node_modules/.bin/<name> to it.
func npmTree(t *testing.T, pkg, version, program, name string) (bin string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "node_modules", pkg)
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "package.json"), `{"name": "`+pkg+`", "version": "`+version+`", "bin": {"`+name+`": "`+program+`"}}`)
	write(filepath.Join(dir, program), "#!/usr/bin/env node\n")
	bin = filepath.Join(root, "node_modules", ".bin", name)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(filepath.Dir(bin), filepath.Join(dir, program))
	if err := os.Symlink(rel, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestPackageVersion(t *testing.T) {
	gemini := npmTree(t, "@google/gemini-cli", "0.61.0", "bundle/gemini.js", "gemini")
	if v, ok := PackageVersion(gemini, "@google/gemini-cli"); !ok || v != "0.61.0" {
		t.Errorf("PackageVersion(.bin/gemini) = %q, %v; want 0.61.0", v, ok)
	}
	// A pre-release keeps its x.y.z.
	pre := npmTree(t, "opencode-ai", "1.19.0-beta.2", "bin/opencode.exe", "opencode")
	if v, ok := PackageVersion(pre, "opencode-ai"); !ok || v != "1.19.0" {
		t.Errorf("PackageVersion of a pre-release = %q, %v; want 1.19.0", v, ok)
	}
	// The nearest package.json is another package's: not this program's
	// version, so the caller asks the program.
	other := npmTree(t, "gemini-wrapper", "9.9.9", "bin/gemini", "gemini")
	if v, ok := PackageVersion(other, "@google/gemini-cli"); ok {
		t.Errorf("PackageVersion of another package's program = %q, want none", v)
	}
	// A program outside any package (a script, a native install).
	script := filepath.Join(t.TempDir(), "gemini")
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)
	if v, ok := PackageVersion(script, "@google/gemini-cli"); ok {
		t.Errorf("PackageVersion of a lone script = %q, want none", v)
	}
	if _, ok := PackageVersion(filepath.Join(t.TempDir(), "missing"), "@google/gemini-cli"); ok {
		t.Error("PackageVersion of a missing program found a version")
	}
	if _, ok := PackageVersion(gemini, ""); ok {
		t.Error("PackageVersion with no package named found a version")
	}
}
