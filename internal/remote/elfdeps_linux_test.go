//go:build linux

package remote

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestELFDepsAsDebugELF holds the small reader to debug/elf's answers
// (the interpreter and DT_NEEDED) on the programs and libraries of this
// machine that the confined sftp-server's set-up would read.
func TestELFDepsAsDebugELF(t *testing.T) {
	var paths []string
	for _, p := range append(append([]string{}, SFTPServers...), "/bin/sh", "/usr/bin/env", "/usr/bin/tmux", os.Args[0]) {
		paths = append(paths, p)
	}
	for _, d := range libDirs {
		m, _ := filepath.Glob(filepath.Join(d, "lib*.so*"))
		paths = append(paths, m...)
	}
	checked, withLibs := 0, 0
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		wantInterp := ""
		for _, pr := range f.Progs {
			if pr.Type == elf.PT_INTERP {
				b := make([]byte, pr.Filesz)
				pr.ReadAt(b, 0)
				wantInterp = string(b[:len(b)-1])
			}
		}
		wantLibs, _ := f.ImportedLibraries()
		f.Close()
		interp, libs, err := elfDeps(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if interp != wantInterp || !slices.Equal(libs, wantLibs) {
			t.Errorf("%s: read %q %q, debug/elf reads %q %q", p, interp, libs, wantInterp, wantLibs)
		}
		checked++
		if len(libs) > 0 {
			withLibs++
		}
	}
	if checked < 3 || withLibs < 2 {
		t.Fatalf("only %d ELF files here (%d with libraries): nothing much compared", checked, withLibs)
	}
	t.Logf("%d ELF files, %d with libraries", checked, withLibs)
	if _, _, err := elfDeps("/etc/passwd"); err == nil {
		t.Error("a text file read as ELF")
	}
}
