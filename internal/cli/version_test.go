package cli

import (
	"bytes"
	"context"
	"testing"
)

// Main's own answer to --version is what urfave/cli prints for it.
func TestVersionAsUrfaveSaysIt(t *testing.T) {
	for _, flag := range []string{"--version", "-v"} {
		for _, v := range []string{"dev", "v1.2.3"} {
			old := Version
			Version = v
			var fast, slow, errs bytes.Buffer
			env := Env{Stdout: &fast, Stderr: &errs, Vars: map[string]string{}}
			if code := Main(context.Background(), []string{"paneteam", flag}, env); code != ExitOK {
				t.Fatalf("paneteam %s: exit %d: %s", flag, code, errs.String())
			}
			env.Stdout = &slow
			if code := run(context.Background(), []string{"paneteam", flag}, env); code != ExitOK {
				t.Fatalf("paneteam %s through urfave/cli: exit %d: %s", flag, code, errs.String())
			}
			Version = old
			if fast.String() != slow.String() || fast.Len() == 0 {
				t.Errorf("paneteam %s (version %s): Main printed %q, urfave/cli %q", flag, v, fast.String(), slow.String())
			}
		}
	}
}
