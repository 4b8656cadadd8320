package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/term/ask"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
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
			return runPrompt(ctx, c, env, func(p *prompter) ([]string, string, error) {
				to := c.String("to")
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
			})
		},
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
			return runPrompt(ctx, c, env, func(p *prompter) ([]string, string, error) {
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
				if m := c.String("permission-mode"); m != "" {
					args = append(args, "--permission-mode="+m)
				}
				if c.Bool("claude") {
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
				cmd := c.Args().Slice()
				if len(cmd) > 0 && cmd[0] == "--" {
					cmd = cmd[1:]
				}
				if len(cmd) > 0 {
					args = append(append(args, "--"), cmd...)
				}
				return args, "", nil
			})
		},
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
			return runPrompt(ctx, c, env, func(p *prompter) ([]string, string, error) {
				fmt.Fprintf(p.term.Out, "teammates: %s\r\n", strings.Join(p.names(true), ", "))
				who, err := p.term.LineUntil(verb+" teammate: ", p.checkMember(false))
				if err != nil {
					return nil, "", err
				}
				return []string{name, "--team=" + p.team, "--name=" + p.resolve(who)}, "", nil
			})
		},
	}
}

// prompter is what a prompt subcommand asks with and about.
type prompter struct {
	term *ask.Terminal
	team string
	cfg  *team.Config
	here tmux.Here
}

// names lists the members one may pick, made safe to draw (config.json
// is written by other programs too); teammates only leaves out the lead.
func (p *prompter) names(teammatesOnly bool) []string {
	var out []string
	for _, m := range p.cfg.Members {
		if teammatesOnly && m.Name == team.LeadName {
			continue
		}
		out = append(out, visible.Line(m.Name))
	}
	return out
}

// resolve is the member s names: its name, or the name it was spawned
// with (spawn-pane stores team.MemberName of what was typed: "it's" is
// member "it-s", and typing "it's" again finds it).
func (p *prompter) resolve(s string) string {
	if m := p.cfg.Member(s); m != nil {
		return m.Name
	}
	if m := p.cfg.Member(team.MemberName(s)); m != nil {
		return m.Name
	}
	return s
}

// checkMember accepts a member's name (or "*" for all when allowed).
func (p *prompter) checkMember(allowAll bool) func(string) error {
	return func(s string) error {
		if allowAll && strings.TrimSpace(s) == "*" {
			return nil
		}
		if p.cfg.Member(p.resolve(s)) == nil {
			return fmt.Errorf("team %s has no member %q (members: %s)", p.cfg.Name, s, strings.Join(p.cfg.MemberNames(), ", "))
		}
		return nil
	}
}

// askFunc asks its questions and returns the paneteam command to run
// (argv after the program name) and its stdin.
type askFunc func(*prompter) (args []string, stdin string, err error)

// runPrompt finds the team, asks, and runs the command through this same
// CLI in-process (so each answer is one argv element, never parsed by a
// shell). Any failure stays on screen until a key is pressed: a popup
// closes when paneteam exits.
func runPrompt(ctx context.Context, c *ucli.Command, env Env, questions askFunc) error {
	f, ok := env.Stdin.(*os.File)
	if !ok {
		return usagef("paneteam prompt asks on a terminal: run it in one, or in a tmux popup (display-popup -E)")
	}
	term, err := ask.Open(f, env.Stdout)
	if err != nil {
		return usagef("%v", err)
	}
	defer term.Close()
	code, err := promptOnce(ctx, c, env, term, questions)
	switch {
	case errors.Is(err, ask.ErrCanceled):
		return exitError{ExitFailure, err}
	case err != nil:
		fmt.Fprintf(env.Stderr, "paneteam: %s\r\n", visible.Line(err.Error()))
		code = ExitFailure
		var u usageError
		if errors.As(err, &u) {
			code = ExitUsage
		}
	}
	if code == ExitOK {
		return nil
	}
	if err := term.Key("nothing was done; press any key to close "); err != nil {
		return exitError{code, err}
	}
	return exitError{code, errors.New("nothing was done (see the message above)")}
}

func promptOnce(ctx context.Context, c *ucli.Command, env Env, term *ask.Terminal, questions askFunc) (int, error) {
	p := &prompter{term: term, team: c.String("team")}
	if tv := env.Getenv("TMUX"); tv != "" {
		here, err := tmux.FindHere(ctx, tv, env.Getenv("TMUX_PANE"))
		if err != nil {
			return 0, err
		}
		p.here = here
		if p.team == "" {
			p.team = here.Team
		}
	}
	if p.team == "" {
		return 0, usagef("no team given: pass --team NAME or set PANETEAM_TEAM%s", tmuxTeamHint(env))
	}
	root, err := readRoot(c, env)
	if err != nil {
		return 0, err
	}
	t, cfg, err := team.Open(root, p.team)
	if err != nil {
		return 0, err
	}
	// p.team stays as given: the commands run next open the team by it
	// (config.json's name, shown here, need not lead back to the folder).
	p.cfg = cfg
	fmt.Fprintf(term.Out, "team %s\r\n", visible.Line(t.Name))
	args, stdin, err := questions(p)
	if err != nil {
		return 0, err
	}
	if err := term.Restore(); err != nil {
		return 0, err
	}
	inner := env
	inner.Stdin = strings.NewReader(stdin)
	inner.Vars = make(map[string]string, len(env.Vars)+2)
	for k, v := range env.Vars {
		inner.Vars[k] = v
	}
	if p.here.Pane != "" {
		inner.Vars["TMUX_PANE"] = p.here.Pane // the lead's pane, for spawn-pane
	}
	global := []string{"paneteam"}
	if c.IsSet("root") {
		global = append(global, "--root="+c.String("root"))
	}
	if c.IsSet("lock-timeout") {
		global = append(global, "--lock-timeout="+c.Duration("lock-timeout").String())
	}
	return Main(ctx, append(global, args...), inner), nil
}
