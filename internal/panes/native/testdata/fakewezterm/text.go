package main

import (
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/ansi"
	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
)

// ttyName is a local pane's terminal device, as list's tty_name gives it
// (null for a pane whose program has not started).
func ttyName(p nativetest.Pane) *string {
	if p.TTY == "" {
		return nil
	}
	t := p.TTY
	return &t
}

// getText is `wezterm cli get-text [--pane-id ID] [--start-line N]
// [--end-line N] [--escapes]`: the pane's lines as text, or with the
// pane's colours and attributes as escape sequences under --escapes. The
// fake keeps what a pane printed, not a rendered screen: without
// --escapes it gives that output with every escape sequence taken out.
func getText(sock string, args []string) error {
	f, _, err := nativetest.ParseArgs(args, []nativetest.Flag{
		{Names: []string{"--pane-id"}, Value: true}, {Names: []string{"--start-line"}, Value: true},
		{Names: []string{"--end-line"}, Value: true}, {Names: []string{"--escapes"}},
	}, false, "wezterm cli get-text [OPTIONS]")
	if err != nil {
		return err
	}
	id, err := paneID(f)
	if err != nil {
		return err
	}
	st, err := connect(sock)
	if err != nil {
		return err
	}
	s, err := nativetest.Load(st)
	if err != nil {
		return err
	}
	if _, ok := s.Pane(id); !ok {
		return notFound(id)
	}
	b, _ := os.ReadFile(nativetest.ScreenPath(st, id))
	out := string(b)
	if _, esc := f["--escapes"]; !esc {
		out = ansi.Strip(out)
	}
	out = strings.ReplaceAll(out, "\r\n", "\n")
	os.Stdout.WriteString(strings.TrimRight(out, "\n") + "\n")
	return nil
}

// sendText is `wezterm cli send-text [--pane-id ID] [--no-paste]
// [TEXT]`: TEXT, or the standard input when it is not given, reaches the
// pane as if pasted: inside bracketed-paste markers when the pane's
// program turned bracketed paste on (CSI ? 2004 h), unless --no-paste,
// which sends the bytes as they are.
func sendText(sock string, args []string) error {
	f, pos, err := nativetest.ParseArgs(args, []nativetest.Flag{
		{Names: []string{"--pane-id"}, Value: true}, {Names: []string{"--no-paste"}},
	}, false, "wezterm cli send-text [OPTIONS] [TEXT]")
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return &nativetest.UsageError{Msg: "unexpected argument '" + pos[1] + "' found", Usage: "wezterm cli send-text [OPTIONS] [TEXT]"}
	}
	id, err := paneID(f)
	if err != nil {
		return err
	}
	var text string
	if len(pos) == 1 {
		text = pos[0]
	} else {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return err
		}
		text = string(b)
	}
	st, err := connect(sock)
	if err != nil {
		return err
	}
	s, err := nativetest.Load(st)
	if err != nil {
		return err
	}
	if _, ok := s.Pane(id); !ok {
		return notFound(id)
	}
	if _, raw := f["--no-paste"]; !raw {
		b, _ := os.ReadFile(nativetest.ScreenPath(st, id))
		if on, off := strings.LastIndex(string(b), "\x1b[?2004h"), strings.LastIndex(string(b), "\x1b[?2004l"); on > off {
			text = "\x1b[200~" + text + "\x1b[201~"
		}
	}
	in, err := os.OpenFile(nativetest.InputPath(st, id), os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return notFound(id)
	}
	defer in.Close()
	_, err = in.WriteString(text)
	return err
}
