package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v3"
)

// Flags may follow positional arguments, as people type them
// ("team-create review --description D"): urfave/cli v3 reads flags
// anywhere before "--" (v2 stopped at the first positional argument, and
// paneteam reordered the arguments for it). commandName below only needs
// to tell flags from the command's name.

func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' && a != "-" }

// takesValue reports whether the flag a (as typed) needs the next argument.
func takesValue(flags []ucli.Flag, a string) bool {
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") {
		return false
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*ucli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
