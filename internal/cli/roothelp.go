package cli

import (
	_ "embed"
	"io"
	"strings"
)

// rootHelp is `paneteam --help` as urfave/cli renders it, kept rendered:
// the text depends on nothing but the commands' names and usages (not on
// the environment or the terminal), and rendering it means building all
// 25 commands and running text/template over them, which cost a --help
// about as much again as the rest of the process (bench/startup).
// TestRootHelpIsUrfaves renders it the slow way and fails when this copy
// is out of date; `go test ./internal/cli -run TestRootHelpIsUrfaves
// -update-root-help` rewrites it.
//
//go:embed roothelp.txt
var rootHelp string

// renderedVersion is the version rootHelp was rendered with.
const renderedVersion = "dev"

// isRootHelp reports whether args ask for nothing but the top-level help:
// no arguments, --help, -h, help or h.
func isRootHelp(args []string) bool {
	switch len(args) {
	case 1:
		return true
	case 2:
		switch args[1] {
		case "--help", "-h", "help", "h":
			return true
		}
	}
	return false
}

// writeRootHelp writes rootHelp with the running version in it, and
// reports false (writing nothing) when it cannot stand in for urfave/cli's
// rendering.
func writeRootHelp(w io.Writer, version string) (bool, error) {
	const line = "\n\nVERSION:\n   "
	text := rootHelp
	if version != renderedVersion {
		if version == "" || strings.ContainsAny(version, "\n\t") || !strings.Contains(text, line+renderedVersion+"\n") {
			return false, nil
		}
		text = strings.Replace(text, line+renderedVersion+"\n", line+version+"\n", 1)
	}
	_, err := io.WriteString(w, text)
	return true, err
}
