package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// intersperse lets flags follow positional arguments, as people type them
// ("team-create review --description D"): urfave/cli v2 stops reading flags
// at the first positional argument. It finds the (sub)command being run and
// moves its flags before its positional arguments. Everything after "--"
// stays where it is: that is the command a teammate runs.
func intersperse(app *ucli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	flags := app.Flags
	cmds := app.Commands
	for {
		// Copy flags of the current level and find the command name.
		i := 0
		for i < len(rest) {
			a := rest[i]
			if a == "--" || !isFlag(a) {
				break
			}
			out = append(out, a)
			if takesValue(flags, a) && i+1 < len(rest) {
				out = append(out, rest[i+1])
				i++
			}
			i++
		}
		rest = rest[i:]
		if len(rest) == 0 || rest[0] == "--" {
			return append(out, rest...)
		}
		cmd := findCommand(cmds, rest[0])
		if cmd == nil {
			return append(out, rest...)
		}
		out = append(out, rest[0])
		rest = rest[1:]
		if len(cmd.Subcommands) > 0 && len(rest) > 0 && findCommand(cmd.Subcommands, firstPositional(cmd.Flags, rest)) != nil {
			flags, cmds = cmd.Flags, cmd.Subcommands
			continue
		}
		return append(out, reorder(cmd.Flags, rest)...)
	}
}

// reorder puts a command's flags (with their values) before its
// positional arguments, leaving "--" and what follows at the end.
func reorder(flags []ucli.Flag, args []string) []string {
	var fl, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i:]...)
			break
		}
		if !isFlag(a) {
			pos = append(pos, a)
			continue
		}
		fl = append(fl, a)
		if takesValue(flags, a) && i+1 < len(args) {
			fl = append(fl, args[i+1])
			i++
		}
	}
	return append(fl, pos...)
}

func firstPositional(flags []ucli.Flag, args []string) string {
	for i := 0; i < len(args); i++ {
		if !isFlag(args[i]) {
			return args[i]
		}
		if takesValue(flags, args[i]) {
			i++
		}
	}
	return ""
}

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

func findCommand(cmds []*ucli.Command, name string) *ucli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
