package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/ansi"
	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
)

// onePane parses args with flags plus 0.44's --pane-id (absent from
// older releases, where clap refuses it), reaches the session, and
// returns the pane named (terminal_N or N), else the focused one.
func onePane(st string, args []string, flags []nativetest.Flag, usage string) (map[string]string, []string, nativetest.Pane, error) {
	if paneIDFlags() {
		flags = append(flags, nativetest.Flag{Names: []string{"--pane-id", "-p"}, Value: true})
	}
	f, pos, err := nativetest.ParseArgs(args, flags, false, usage)
	if err != nil {
		return nil, nil, nativetest.Pane{}, err
	}
	if err := reach(st); err != nil {
		return nil, nil, nativetest.Pane{}, err
	}
	s, err := nativetest.Load(st)
	if err != nil {
		return nil, nil, nativetest.Pane{}, err
	}
	p := focused(&s)
	if raw, ok := f["--pane-id"]; ok {
		id, err := strconv.Atoi(strings.TrimPrefix(raw, "terminal_"))
		if err != nil {
			return nil, nil, nativetest.Pane{}, fmt.Errorf("Invalid pane id: %s", raw)
		}
		if p, ok = s.Pane(id); !ok {
			return nil, nil, nativetest.Pane{}, fmt.Errorf("Pane with id %s not found", raw)
		}
	}
	if p == nil {
		return nil, nil, nativetest.Pane{}, fmt.Errorf("no focused pane")
	}
	return f, pos, *p, nil
}

// dumpScreen is `action dump-screen [--path P] [--full] [--pane-id ID]
// [--ansi]` (0.44; 0.43's takes the path as its argument and acts on the
// focused pane): the pane's viewport, to P or else to standard output,
// without the pane's styling unless --ansi. The fake keeps what a pane
// printed, not a rendered screen: it gives that output without its
// escape sequences.
func dumpScreen(st string, args []string) error {
	const usage = "zellij action dump-screen [OPTIONS]"
	flags := []nativetest.Flag{{Names: []string{"--full", "-f"}}}
	if paneIDFlags() {
		flags = append(flags, nativetest.Flag{Names: []string{"--path"}, Value: true}, nativetest.Flag{Names: []string{"--ansi", "-a"}})
	}
	f, pos, p, err := onePane(st, args, flags, usage)
	if err != nil {
		return err
	}
	path, toFile := f["--path"]
	if !paneIDFlags() {
		if len(pos) != 1 {
			return &nativetest.UsageError{Msg: "the following required arguments were not provided:\n  <PATH>", Usage: usage}
		}
		path, toFile = pos[0], true
	} else if len(pos) > 0 {
		return &nativetest.UsageError{Msg: fmt.Sprintf("unexpected argument '%s' found", pos[0]), Usage: usage}
	}
	b, _ := os.ReadFile(nativetest.ScreenPath(st, p.ID))
	out := string(b)
	if _, keep := f["--ansi"]; !keep {
		out = ansi.Strip(out)
	}
	out = strings.TrimRight(strings.ReplaceAll(out, "\r\n", "\n"), "\n") + "\n"
	if toFile {
		return os.WriteFile(path, []byte(out), 0o644)
	}
	_, err = os.Stdout.WriteString(out)
	return err
}

// writeChars is `action write-chars [--pane-id ID] CHARS`: CHARS reach
// the pane's program as they are.
func writeChars(st string, args []string) error {
	const usage = "zellij action write-chars [OPTIONS] <CHARS>"
	_, pos, p, err := onePane(st, args, nil, usage)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &nativetest.UsageError{Msg: "the following required arguments were not provided:\n  <CHARS>", Usage: usage}
	}
	return typeInto(st, p, pos[0])
}

// sendKeys is `action send-keys [--pane-id ID] KEY...` (0.44): each key
// ("Enter", "Esc", "Shift Tab", "a") as the pane's program asked for it:
// in kitty's keyboard protocol once the program pushed it (CSI > flags
// u), which Zellij 0.44 supports, else as legacy bytes.
func sendKeys(st string, args []string) error {
	const usage = "zellij action send-keys [OPTIONS] <KEYS>..."
	if !paneIDFlags() {
		return &nativetest.UsageError{Msg: "unrecognized subcommand 'send-keys'", Usage: "zellij action <SUBCOMMAND>"}
	}
	_, pos, p, err := onePane(st, args, nil, usage)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return &nativetest.UsageError{Msg: "the following required arguments were not provided:\n  <KEYS>...", Usage: usage}
	}
	raw, _ := os.ReadFile(nativetest.ScreenPath(st, p.ID))
	kitty := kittyOn(string(raw))
	var b strings.Builder
	for i, k := range pos {
		enc, ok := keyBytes(k, kitty)
		if !ok {
			return fmt.Errorf("Invalid key at position %d: \"%s\"", i+1, k)
		}
		b.WriteString(enc)
	}
	return typeInto(st, p, b.String())
}

// kittyOn: the program's last keyboard-protocol push (CSI > N u) is not
// followed by a pop (CSI < u).
func kittyOn(screen string) bool {
	push, pop := -1, strings.LastIndex(screen, "\x1b[<u")
	for i := strings.Index(screen, "\x1b[>"); i >= 0; {
		j := i + 3
		for j < len(screen) && screen[j] >= '0' && screen[j] <= '9' {
			j++
		}
		if j < len(screen) && screen[j] == 'u' && j > i+3 {
			push = i
		}
		n := strings.Index(screen[i+1:], "\x1b[>")
		if n < 0 {
			break
		}
		i += 1 + n
	}
	return push > pop
}

func keyBytes(k string, kitty bool) (string, bool) {
	legacy := map[string]string{
		"enter": "\r", "esc": "\x1b", "tab": "\t", "shift tab": "\x1b[Z", "space": " ", "backspace": "\x7f",
		"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	}
	lk := strings.ToLower(k)
	if kitty {
		switch lk {
		case "esc":
			return "\x1b[27u", true
		case "shift tab":
			return "\x1b[9;2u", true
		}
	}
	if b, ok := legacy[lk]; ok {
		return b, true
	}
	if len(k) == 1 {
		return k, true
	}
	return "", false
}

func typeInto(st string, p nativetest.Pane, data string) error {
	in, err := os.OpenFile(nativetest.InputPath(st, p.ID), os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("Pane with id %d not found", p.ID)
	}
	defer in.Close()
	_, err = in.WriteString(data)
	return err
}
