package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/team"
)

// prompt asks for a message or a name on the terminal and then runs the
// command it belongs to with the answer as one argv element (or stdin):
// what tmux.conf.example's key bindings open in a popup, so that nothing
// typed passes through a shell or a tmux format (issue 12).
func promptCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "prompt",
		Usage: "ask on the terminal for a message or a teammate, then send, spawn, hide, show or stop (for tmux key bindings)",
		Description: `Asks its questions on the terminal it runs in and passes the answers on
exactly as typed: quotes, $, backticks, backslashes, ';', #(...), %1 and any
UTF-8 are text, never run, and lines of any length are taken (a pasted
multi-line text stays one message). Made for tmux key bindings:

    bind-key M display-popup -E paneteam prompt send

Inside tmux (a popup included) the team is the session's @paneteam-team
option, unless --team or $PANETEAM_TEAM names one, and the lead's pane is
the pane the key was pressed in. Esc or Ctrl-C cancels. When the command
fails, its error stays on screen until a key is pressed.`,
		Commands: []*ucli.Command{
			promptSendCommand(env),
			promptSpawnCommand(env),
			promptMemberCommand(env, "hide", "hide", "hide a teammate's pane (it keeps working)"),
			promptMemberCommand(env, "show", "show", "bring a hidden teammate's pane back"),
			promptMemberCommand(env, "kill-pane", "stop", "stop a teammate: close its pane, release its tasks"),
		},
	}
}

func promptSendCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "send",
		Usage: "ask for a recipient and a message, then send it",
		Description: `Asks "to" (a member's name, or * for every member) and the message, then
runs paneteam send with the message on stdin.

    paneteam prompt send --team review`,
		Flags: []ucli.Flag{teamFlag(), &ucli.StringFlag{Name: "to", Usage: "recipient (asked when not given)"}},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runPrompt(ctx, env, readPromptOptions(c), askSend(readFlags(c).String("to")))
		},
	}
}

// askSend asks for the recipient (unless to names one) and the message,
// and sends it with the message on stdin.
func askSend(to string) askFunc {
	return func(p *prompter) ([]string, string, error) {
		if to == "" {
			var err error
			fmt.Fprintf(p.term.Out, "members: %s (* sends to all)\r\n", strings.Join(p.names(false), ", "))
			if to, err = p.term.LineUntil("to: ", p.checkMember(true)); err != nil {
				return nil, "", err
			}
			to = p.resolve(to)
		}
		text, err := p.term.LineUntil("message: ", func(s string) error {
			if strings.TrimSpace(s) == "" {
				return errors.New("the message is empty: type one, or Esc to cancel")
			}
			return nil
		})
		if err != nil {
			return nil, "", err
		}
		who := "--to=" + to
		if strings.TrimSpace(to) == "*" {
			who = "--broadcast"
		}
		// On stdin with its own newline, which send takes off
		// again: the text reaches the inbox unchanged, even "-" or
		// one that starts like a flag.
		return []string{"send", "--team=" + p.team, who, "-"}, text + "\n", nil
	}
}

func promptSpawnCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "spawn",
		Usage:     "ask for a teammate's name (and with --claude its first prompt), then spawn it",
		ArgsUsage: "[-- COMMAND [ARGS...]]",
		Description: `Asks the new teammate's name, and with --claude its first prompt (Enter
for none), then runs paneteam spawn-pane beside the current pane, in its
folder. COMMAND (after --) is what the teammate runs, as spawn-pane takes it.

    paneteam prompt spawn --claude
    paneteam prompt spawn -- bash -l`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.BoolFlag{Name: "claude", Usage: "a Claude Code teammate (asks for its first prompt)"},
			&ucli.StringFlag{Name: "permission-mode", Usage: "with --claude: passed to spawn-pane"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runPrompt(ctx, env, readPromptOptions(c), askSpawn(readPromptSpawnOptions(c)))
		},
	}
}

// promptSpawnOptions are what prompt spawn passes on to spawn-pane.
type promptSpawnOptions struct {
	Claude         bool
	PermissionMode string
	Command        []string // COMMAND [ARGS...], after --
}

func readPromptSpawnOptions(c *ucli.Command) promptSpawnOptions {
	cmd := c.Args().Slice()
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	return promptSpawnOptions{Claude: readFlags(c).Bool("claude"), PermissionMode: readFlags(c).String("permission-mode"), Command: cmd}
}

// askSpawn asks for the new teammate's name (and with --claude its first
// prompt), and spawns it beside the current pane, in its folder.
func askSpawn(o promptSpawnOptions) askFunc {
	return func(p *prompter) ([]string, string, error) {
		name, err := p.term.LineUntil("teammate name: ", func(s string) error { return team.CheckName("member", s) })
		if err != nil {
			return nil, "", err
		}
		args := []string{"spawn-pane", "--team=" + p.team, "--name=" + name}
		if p.here.Dir != "" {
			if st, err := os.Stat(p.here.Dir); err == nil && st.IsDir() {
				args = append(args, "--cwd="+p.here.Dir)
			}
		}
		if m := o.PermissionMode; m != "" {
			args = append(args, "--permission-mode="+m)
		}
		if o.Claude {
			fmt.Fprint(p.term.Out, "its first message (Enter for none)\r\n")
			first, err := p.term.Line("first prompt: ")
			if err != nil {
				return nil, "", err
			}
			args = append(args, "--claude")
			if first != "" {
				args = append(args, "--prompt="+first)
			}
		}
		if len(o.Command) > 0 {
			args = append(append(args, "--"), o.Command...)
		}
		return args, "", nil
	}
}

func promptMemberCommand(env Env, name, verb, usage string) *ucli.Command {
	return &ucli.Command{
		Name:  name,
		Usage: "ask for a teammate, then " + usage,
		Description: fmt.Sprintf(`Asks for a teammate's name, then runs paneteam %s.

    paneteam prompt %s --team review`, name, name),
		Flags: []ucli.Flag{teamFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runPrompt(ctx, env, readPromptOptions(c), askMember(name, verb))
		},
	}
}

// askMember asks for a teammate, and runs the command name on it.
func askMember(name, verb string) askFunc {
	return func(p *prompter) ([]string, string, error) {
		fmt.Fprintf(p.term.Out, "teammates: %s\r\n", strings.Join(p.names(true), ", "))
		who, err := p.term.LineUntil(verb+" teammate: ", p.checkMember(false))
		if err != nil {
			return nil, "", err
		}
		return []string{name, "--team=" + p.team, "--name=" + p.resolve(who)}, "", nil
	}
}

// promptOptions are the flags every prompt subcommand shares.
type promptOptions struct {
	Team string // --team, or PANETEAM_TEAM; "" for the tmux session's
	Root string // --root, or PANETEAM_ROOT
	// Global are --root and --lock-timeout as given, for the command
	// the answers run.
	Global []string
}

func readPromptOptions(c *ucli.Command) promptOptions {
	o := promptOptions{Team: readFlags(c).String("team"), Root: readFlags(c).String("root")}
	if readFlags(c).IsSet("root") {
		o.Global = append(o.Global, "--root="+readFlags(c).String("root"))
	}
	if readFlags(c).IsSet("lock-timeout") {
		o.Global = append(o.Global, "--lock-timeout="+readFlags(c).Duration("lock-timeout").String())
	}
	return o
}
