package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/program"
)

// ZellijPane is one terminal pane of a Zellij session, reached by
// Zellij's CLI (`zellij --session S action ... --pane-id N`, Zellij
// 0.44 or later) by its id (ZELLIJ_PANE_ID): a pane of the person's that
// paneteam was told of, not one it opened, read and typed into for them
// (Claude's lead's, recorded at its start). SocketDir is the session's
// ZELLIJ_SOCKET_DIR ("": Zellij's default folder).
type ZellijPane struct {
	Bin       string // the zellij program
	Session   string
	SocketDir string
	ID        string
}

var (
	// ErrNoZellijPane: the session answers, but has no terminal pane of
	// that id, or its command has exited.
	ErrNoZellijPane = errors.New("Zellij has no such pane")
	// ErrZellijTooOld: this Zellij's actions cannot name a pane (before
	// 0.44 they act on the focused pane only).
	ErrZellijTooOld = errors.New("this Zellij cannot address a pane by id (Zellij 0.44 or later can)")
)

func (p ZellijPane) action(ctx context.Context, args ...string) (string, error) {
	if _, err := strconv.Atoi(p.ID); err != nil {
		return "", fmt.Errorf("Zellij pane id %q is not a number", p.ID)
	}
	out, err := program.Output(ctx, program.Cmd{
		Path: p.Bin, Name: "zellij", Args: append([]string{"--session", p.Session, "action"}, args...),
		Env: cliEnviron(func(k string) string {
			if k == "ZELLIJ_SOCKET_DIR" {
				return p.SocketDir
			}
			return ""
		}, "ZELLIJ_SOCKET_DIR", "ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID"),
		DefaultTimeout: zellijCallTimeout,
	})
	var pe *program.Error
	if err != nil && errors.As(err, &pe) && (strings.Contains(pe.Stderr, "unexpected argument '--pane-id'") ||
		strings.Contains(pe.Stderr, "unrecognized subcommand 'send-keys'")) {
		return "", fmt.Errorf("zellij action %s: %w", args[0], ErrZellijTooOld)
	}
	return out, err
}

// Check says whether the pane is there, a terminal pane whose command
// runs (ErrNoZellijPane when not), in a Zellij whose actions can name it
// (ErrZellijTooOld when not).
func (p ZellijPane) Check(ctx context.Context) error {
	v, err := program.Output(ctx, program.Cmd{Path: p.Bin, Name: "zellij", Args: []string{"--version"}, DefaultTimeout: zellijCallTimeout})
	if err != nil {
		return err
	}
	if !zellijAddressesPanes(v) {
		return fmt.Errorf("%s: %w", strings.TrimSpace(v), ErrZellijTooOld)
	}
	out, err := p.action(ctx, "list-panes", "--json")
	if err != nil {
		return err
	}
	var ls []struct {
		ID       int  `json:"id"`
		IsPlugin bool `json:"is_plugin"`
		Exited   bool `json:"exited"`
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		return fmt.Errorf("zellij action list-panes: unexpected output: %w", err)
	}
	for _, x := range ls {
		if !x.IsPlugin && strconv.Itoa(x.ID) == p.ID {
			if x.Exited {
				return fmt.Errorf("pane %s of the Zellij session %s has exited: %w", p.ID, p.Session, ErrNoZellijPane)
			}
			return nil
		}
	}
	return fmt.Errorf("pane %s of the Zellij session %s: %w", p.ID, p.Session, ErrNoZellijPane)
}

// Text is the pane's viewport as text: dump-screen to standard output
// without --ansi, so no escape sequence of the pane's comes with it.
func (p ZellijPane) Text(ctx context.Context) (string, error) {
	out, err := p.action(ctx, "dump-screen", "--pane-id", p.ID)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(out, "\n "), nil
}

// Send types data into the pane as it is: write-chars with the text as
// one argument after "--", so a text that starts with "-" is not read
// as an option.
func (p ZellijPane) Send(ctx context.Context, data string) error {
	if data == "" {
		return nil
	}
	_, err := p.action(ctx, "write-chars", "--pane-id", p.ID, "--", data)
	return err
}

// Key presses one key by Zellij's name of it ("Enter", "Esc", "Shift
// Tab", "a"): send-keys encodes it as the pane's program asked, kitty's
// keyboard protocol included.
func (p ZellijPane) Key(ctx context.Context, name string) error {
	_, err := p.action(ctx, "send-keys", "--pane-id", p.ID, "--", name)
	return err
}

// zellijAddressesPanes: the release `zellij --version` names ("zellij
// 0.44.2") is 0.44 or later, whose dump-screen, write-chars and send-keys
// take --pane-id.
func zellijAddressesPanes(version string) bool {
	f := strings.Fields(version)
	if len(f) < 2 {
		return false
	}
	major, rest, _ := strings.Cut(f[len(f)-1], ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	return err1 == nil && err2 == nil && (ma > 0 || mi >= 44)
}
