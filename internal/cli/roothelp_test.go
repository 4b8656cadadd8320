package cli

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

var updateRootHelp = flag.Bool("update-root-help", false, "rewrite roothelp.txt from urfave/cli's rendering")

// slowHelp is what urfave/cli itself prints for args.
func slowHelp(t *testing.T, args ...string) string {
	t.Helper()
	slow := testutil.CLI{Main: func(ctx context.Context, inv testutil.Invocation) int { return run(ctx, inv.Args, envOf(inv, "")) }}
	return slow.Must(t, args...)
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
				r := pt(t, map[string]string{}).Run(t, args...)
				if r.Code != ExitOK || r.Stderr != "" {
					t.Fatalf("paneteam %v: exit %d: %s", args, r.Code, r.Stderr)
				}
				if got, slow := r.Stdout, slowHelp(t, args...); got != slow {
					t.Errorf("version %s, paneteam %v prints\n%s\nbut urfave/cli renders\n%s", version, args, got, slow)
				}
			}
		}()
	}
}
