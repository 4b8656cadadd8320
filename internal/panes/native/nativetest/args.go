package nativetest

import (
	"fmt"
	"os"
	"strings"
)

// Flag is one option of a fake CLI command, as clap (the argument parser
// of both WezTerm and Zellij) declares it: its names ("--cwd", "-c") and
// whether it takes a value.
type Flag struct {
	Names []string
	Value bool
}

// UsageError is clap's answer to a command line it does not accept:
// exit status 2 and "error: ..." on stderr.
type UsageError struct{ Msg, Usage string }

func (e *UsageError) Error() string {
	return fmt.Sprintf("error: %s\n\nUsage: %s\n\nFor more information, try '--help'.", e.Msg, e.Usage)
}

// ParseArgs parses args by flags. Values are keyed by each flag's first
// name ("" for a flag without a value). With trailing, the first
// positional argument or "--" starts the program's argv, which is
// returned whole; otherwise positionals are returned and flags may
// follow them. An unknown flag is a UsageError, as clap makes it.
func ParseArgs(args []string, flags []Flag, trailing bool, usage string) (map[string]string, []string, error) {
	got := map[string]string{}
	var pos []string
	find := func(name string) (Flag, bool) {
		for _, f := range flags {
			for _, n := range f.Names {
				if n == name {
					return f, true
				}
			}
		}
		return Flag{}, false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return got, append(pos, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if trailing {
				return got, append(pos, args[i:]...), nil
			}
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		f, ok := find(name)
		if !ok {
			return nil, nil, &UsageError{fmt.Sprintf("unexpected argument '%s' found", name), usage}
		}
		key := f.Names[0]
		if _, dup := got[key]; dup {
			return nil, nil, &UsageError{fmt.Sprintf("the argument '%s' cannot be used multiple times", key), usage}
		}
		switch {
		case f.Value && hasVal:
			got[key] = val
		case f.Value:
			if i+1 >= len(args) {
				return nil, nil, &UsageError{fmt.Sprintf("a value is required for '%s' but none was supplied", key), usage}
			}
			i++
			got[key] = args[i]
		case hasVal:
			return nil, nil, &UsageError{fmt.Sprintf("unexpected value '%s' for '%s' found; no more were expected", val, key), usage}
		default:
			got[key] = ""
		}
	}
	return got, pos, nil
}

// Exit prints err as the real CLI would and returns its exit status: 2
// for a usage error, 1 otherwise.
func Exit(err error) int {
	if err == nil {
		return 0
	}
	if ue, ok := err.(*UsageError); ok {
		fmt.Fprintln(os.Stderr, ue.Error())
		return 2
	}
	fmt.Fprintln(os.Stderr, err.Error())
	return 1
}
