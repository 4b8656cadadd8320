package cli

import (
	"fmt"
	"io"
)

// isVersion reports a bare 'paneteam --version' (or -v), which Main
// answers itself, as urfave/cli would word it: a version needs no command,
// no flag and no help, and building the root command and letting
// urfave/cli set it up was a fifth of the instructions of the run
// (bench/RESULTS.md). TestVersionAsUrfaveSaysIt holds the two equal.
func isVersion(args []string) bool {
	return len(args) == 2 && (args[1] == "--version" || args[1] == "-v")
}

// writeVersion is urfave/cli's DefaultPrintVersion for paneteam.
func writeVersion(w io.Writer, version string) error {
	_, err := fmt.Fprintf(w, "paneteam version %v\n", version)
	return err
}
