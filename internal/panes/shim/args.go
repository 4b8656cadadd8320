package shim

import (
	"fmt"
	"strings"
)

// Call is one tmux command line as the shim reads it: tmux's global
// options, then one command with its flags and arguments, parsed the way
// tmux 3.3 parses them (getopt, with the option strings of tmux's own
// command table), so that a reordered or combined flag ("-dP") means what
// it means to tmux.
type Call struct {
	// Argv is the command line without the program name, as given.
	Argv []string
	// Socket is -S, Name is -L: the server the call is addressed to.
	Socket, Name string
	// Version is -V (print tmux's version, no server).
	Version bool
	// Globals are the global options as given (passed on unchanged).
	Globals []string
	// Cmd is the command's full name ("" when there is none); Alias is
	// the name as written.
	Cmd, Alias string
	// Flags holds every flag the command was given: the value of one
	// that takes a value, "" for one that does not. Order lists them as
	// given.
	Flags map[byte]string
	Order []byte
	// Args are the positional arguments (after "--" if there was one).
	Args []string
}

// Has reports whether flag f was given.
func (c Call) Has(f byte) bool { _, ok := c.Flags[f]; return ok }

// Flag is the value of flag f ("" when absent).
func (c Call) Flag(f byte) string { return c.Flags[f] }

// String renders the call as a shell would show it, for messages.
func (c Call) String() string {
	q := make([]string, 0, len(c.Argv)+1)
	q = append(q, "tmux")
	for _, a := range c.Argv {
		q = append(q, shellQuote(a))
	}
	return strings.Join(q, " ")
}

// globalSpec is tmux 3.3's getopt string for its own options (tmux.c).
const globalSpec = "2c:CDdf:lL:NqS:T:uUvV"

// commandSpec is the getopt string of every command the shim parses, as
// in tmux 3.3's command table (cmd-*.c), and alias gives full names. A
// command missing here is unknown to the shim, whatever tmux makes of it.
// They are switches, not maps, so that no paneteam start builds them
// (every start links the shim).
func commandSpec(cmd string) (string, bool) {
	switch cmd {
	case "display-message":
		return "aCc:d:lINpt:F:v", true
	case "has-session":
		return "t:", true
	case "kill-pane":
		return "at:", true
	case "list-panes":
		return "asF:f:t:", true
	case "list-windows":
		return "aF:f:t:", true
	case "new-session":
		return "Ac:dDe:EF:f:n:Ps:t:x:Xy:", true
	case "new-window":
		return "abc:de:F:kn:PSt:", true
	case "resize-pane":
		return "DLMRTt:Ux:y:Z", true
	case "respawn-pane":
		return "c:e:kt:", true
	case "select-layout":
		return "Enopt:", true
	case "select-pane":
		return "DdegLlMmP:RT:t:UZ", true
	case "set-option":
		return "aFgopqst:uUw", true
	case "show-options":
		return "AgHpqst:vw", true
	case "split-window":
		return "bc:de:fF:hIl:p:Pt:vZ", true
	}
	return "", false
}

func alias(cmd string) (string, bool) {
	switch cmd {
	case "display":
		return "display-message", true
	case "has":
		return "has-session", true
	case "killp":
		return "kill-pane", true
	case "lsp":
		return "list-panes", true
	case "lsw":
		return "list-windows", true
	case "new":
		return "new-session", true
	case "neww":
		return "new-window", true
	case "resizep":
		return "resize-pane", true
	case "respawnp":
		return "respawn-pane", true
	case "selectl":
		return "select-layout", true
	case "selectp":
		return "select-pane", true
	case "set":
		return "set-option", true
	case "show":
		return "show-options", true
	case "splitw":
		return "split-window", true
	}
	return "", false
}

// ParseError is a command line the shim cannot read as tmux would.
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return e.Msg }

// Parse reads a tmux command line (without the program name).
func Parse(argv []string) (Call, error) {
	c := Call{Argv: argv, Flags: map[byte]string{}}
	rest, err := getopt(argv, globalSpec, func(f byte, v string) {
		switch f {
		case 'S':
			c.Socket = v
		case 'L':
			c.Name = v
		case 'V':
			c.Version = true
		}
	})
	if err != nil {
		return c, err
	}
	c.Globals = argv[:len(argv)-len(rest)]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:] // getopt stopped before it
	}
	if len(rest) == 0 {
		return c, nil
	}
	c.Alias = rest[0]
	c.Cmd = rest[0]
	if full, ok := alias(c.Cmd); ok {
		c.Cmd = full
	}
	spec, ok := commandSpec(c.Cmd)
	if !ok {
		return c, &ParseError{Msg: fmt.Sprintf("command %q is not one paneteam's tmux reads", rest[0])}
	}
	c.Args, err = getopt(rest[1:], spec, func(f byte, v string) {
		if _, dup := c.Flags[f]; !dup {
			c.Order = append(c.Order, f)
		}
		c.Flags[f] = v
	})
	if len(c.Args) > 0 && c.Args[0] == "--" {
		c.Args = c.Args[1:]
	}
	if err != nil {
		return c, &ParseError{Msg: fmt.Sprintf("command %s: %v", c.Cmd, err)}
	}
	for _, a := range c.Args {
		// tmux cuts its command line into several commands at an
		// argument ending in an unescaped ';'.
		if strings.HasSuffix(a, ";") && !strings.HasSuffix(a, `\;`) {
			return c, &ParseError{Msg: "several commands in one call (an argument ends in ';')"}
		}
	}
	return c, nil
}

// getopt parses POSIX-style flags from args by spec (a letter followed by
// ':' takes a value) until the first argument that is not a flag, or
// "--", and returns the rest (from that "--" on). Each flag is passed to
// set with its value.
func getopt(args []string, spec string, set func(f byte, v string)) ([]string, error) {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			f := a[j]
			k := strings.IndexByte(spec, f)
			if k < 0 || f == ':' {
				return nil, &ParseError{Msg: fmt.Sprintf("unknown flag -%c", f)}
			}
			if k+1 < len(spec) && spec[k+1] == ':' {
				var v string
				if j+1 < len(a) {
					v = a[j+1:]
				} else {
					i++
					if i >= len(args) {
						return nil, &ParseError{Msg: fmt.Sprintf("-%c expects an argument", f)}
					}
					v = args[i]
				}
				set(f, v)
				break
			}
			set(f, "")
		}
		i++
	}
	return args[i:], nil
}

// shellQuote quotes s for a POSIX shell, bare when it needs no quotes.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
