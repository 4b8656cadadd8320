package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"
)

var updateRootHelp = flag.Bool("update-root-help", false, "rewrite roothelp.txt from urfave/cli's rendering")

// slowHelp is what urfave/cli itself prints for args.
func slowHelp(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errb, Vars: map[string]string{}}
	if code := run(context.Background(), append([]string{"paneteam"}, args...), env); code != ExitOK {
		t.Fatalf("paneteam %v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// The kept copy of the top-level help is exactly what urfave/cli renders,
// for every way of asking for it and for a release's version too.
func TestRootHelpIsUrfaves(t *testing.T) {
	want := slowHelp(t, "--help")
	if *updateRootHelp {
		if err := os.WriteFile("roothelp.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		rootHelp = want
	}
	if rootHelp != want {
		t.Fatalf("internal/cli/roothelp.txt is out of date (a command's name or usage changed?); "+
			"run: go test ./internal/cli -run TestRootHelpIsUrfaves -update-root-help\nkept:\n%s\nurfave/cli:\n%s", rootHelp, want)
	}
	for _, version := range []string{"dev", "1.4.2", "v0.9.0-rc1+dirty"} {
		func() {
			saved := Version
			Version = version
			defer func() { Version = saved }()
			for _, args := range [][]string{nil, {"--help"}, {"-h"}, {"help"}, {"h"}} {
				var out, errb bytes.Buffer
				env := Env{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errb, Vars: map[string]string{}}
				if code := Main(context.Background(), append([]string{"paneteam"}, args...), env); code != ExitOK || errb.Len() > 0 {
					t.Fatalf("paneteam %v: exit %d: %s", args, code, errb.String())
				}
				if got, slow := out.String(), slowHelp(t, args...); got != slow {
					t.Errorf("version %s, paneteam %v prints\n%s\nbut urfave/cli renders\n%s", version, args, got, slow)
				}
			}
		}()
	}
}
