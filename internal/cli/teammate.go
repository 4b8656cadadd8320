package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/teammate"
	"github.com/paneteam/paneteam/internal/panes/ptyhost"
	"github.com/paneteam/paneteam/internal/term/tty"
)

func teammateCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "teammate",
		Usage:     "make any program a teammate: deliver its inbox as typed input, report idle, answer shutdown",
		ArgsUsage: "[-- COMMAND [ARGS...]]",
		Description: `Runs COMMAND under a pseudo-terminal and acts as a teammate for it: each
new message in its inbox is typed in (the text, then Enter once the program
has read the text; multi-line text as one bracketed paste when the program
asks for that), its output shows in this terminal, where you can also type.
When the program has been quiet for --idle-after, the lead gets an
idle_notification. A shutdown_request from the lead ends the program and
is answered with shutdown_approved; from anyone else it is answered with
shutdown_rejected. With --lead-verify-key (the key Claude Code's lead gave
this teammate), a shutdown_request is obeyed only when the lead signed it.
Shutdown requests are handled first, then the lead's messages, then peers'.
Only delivered messages are marked read.

Messages are typed into COMMAND as if you typed them, so COMMAND should be
an agent that reads them as text. Never make it a shell (bash, sh, zsh): a
shell would run every message, from any teammate, as commands.

Without COMMAND it is the reference teammate: it answers each message to
its sender with a reply quoting it, idles, and approves shutdown.

The identity comes from --team/--name, or PANETEAM_TEAM/PANETEAM_AGENT as
spawn-pane sets them, so this just works:

    paneteam spawn-pane --team review --name helper -- paneteam teammate -- aider
    paneteam spawn-pane --team review --name echo -- paneteam teammate`,
		Flags: append([]ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "this teammate's name", Sources: ucli.EnvVars("PANETEAM_AGENT")},
			&ucli.DurationFlag{Name: "idle-after", Value: teammate.DefaultIdleAfter, Usage: "quiet time after which the lead is told this teammate is idle"},
			&ucli.DurationFlag{Name: "poll", Value: teammate.DefaultPoll, Usage: "how often the inbox is read"},
		}, agentTeammateFlags()...),
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runTeammate(ctx, env, readTeammateOptions(c))
		},
	}
}

type teammateOptions struct {
	Scope     teamScope
	Name      string
	IdleAfter time.Duration
	Poll      time.Duration
	Command   []string // after --; none: the reference teammate
	Agent     agentTeammateOptions
}

func readTeammateOptions(c *ucli.Command) teammateOptions {
	argv := c.Args().Slice()
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	return teammateOptions{
		Scope: readTeamScope(c), Name: readFlags(c).String("name"), IdleAfter: readFlags(c).Duration("idle-after"), Poll: readFlags(c).Duration("poll"),
		Command: argv, Agent: readAgentTeammateOptions(c),
	}
}

func runTeammate(ctx context.Context, env Env, o teammateOptions) error {
	t, cfg, err := o.Scope.open(ctx, env)
	if err != nil {
		return err
	}
	name := o.Name
	if name == "" {
		return usagef("no teammate name: pass --name NAME or set PANETEAM_AGENT")
	}
	if err := checkLeadVerifyKey(o.Agent.LeadVerifyKey); err != nil {
		return err
	}
	tc := teammate.Config{
		Team: t, Name: name, Lock: o.Scope.Lock,
		Poll: o.Poll, IdleAfter: o.IdleAfter, Log: env.Stderr, LeadKey: o.Agent.LeadVerifyKey,
	}
	if o.Agent.Agent != "" {
		return runAgentTeammate(ctx, env, tc, o.Command, o.Agent)
	}
	if o.Agent.Budget != 0 {
		what := "the reference teammate"
		if len(o.Command) > 0 {
			what = o.Command[0]
		}
		return usagef("--budget: paneteam cannot see what %s spends (only the agent CLIs, --agent, and Claude Code record their tokens where paneteam reads them); leave out --budget", what)
	}
	if o.Agent.Session != "" {
		return usagef("--cli-session goes with --agent: it names a session of that CLI's")
	}
	if len(o.Command) == 0 {
		color := ""
		if m := cfg.Member(name); m != nil {
			color = m.Color
		}
		fmt.Fprintf(env.Stdout, "%s@%s: reference teammate; answering each message with a quote of it\r\n", name, t.Name)
		ref := &teammate.Reference{Team: t, Name: name, Color: color, Lock: o.Scope.Lock, Out: env.Stdout}
		return teammate.Run(ctx, tc, ref)
	}
	return runWrapped(ctx, env, tc, o.Command)
}

// runWrapped runs argv under a pseudo-terminal mirrored to this one: when
// stdin is a terminal it is taken (tty.Take: raw mode, restored on every
// way out) so keys reach the program as typed, and the program's size
// follows the window's.
func runWrapped(ctx context.Context, env Env, tc teammate.Config, argv []string) error {
	return runWrappedAs(ctx, env, tc, argv, func(p *teammate.Program) teammate.Agent { return p })
}

// runWrappedAs is runWrapped with the program seen by the loop as agent(p).
func runWrappedAs(ctx context.Context, env Env, tc teammate.Config, argv []string, agent func(*teammate.Program) teammate.Agent) error {
	// From the moment the program runs, a hang-up must cancel ctx, so
	// that the deferred Stop ends the program, not end this process by
	// its default action and leave the program running: asking for Done
	// installs cmd/paneteam's handler, which it installs only on demand.
	_ = ctx.Done()
	o := teammate.ProgramOptions{Env: env.Environ(), Mirror: env.Stdout}
	o.Rows, o.Cols = ptyhost.DefaultRows, ptyhost.DefaultCols
	in, isFile := env.Stdin.(*os.File)
	isTTY := isFile && env.StdinTTY
	if isTTY {
		if s, err := tty.SizeOf(int(in.Fd())); err == nil && s.Rows > 0 {
			o.Rows, o.Cols = s.Rows, s.Cols
		}
	}
	prog, err := teammate.StartProgram(argv, o)
	if err != nil {
		return err
	}
	defer prog.Stop(context.WithoutCancel(ctx))
	if isTTY {
		release, err := tty.Take(int(in.Fd()), tty.Size{Rows: o.Rows, Cols: o.Cols}, func(s tty.Size) {
			prog.Resize(s.Rows, s.Cols) //nolint:errcheck // an ended program needs no size
		})
		if err != nil {
			return err
		}
		defer release()
		go forwardKeys(in, prog)
	}
	return teammate.Run(ctx, tc, agent(prog))
}

// forwardKeys passes the user's keystrokes to the program until either
// side ends.
func forwardKeys(in *os.File, prog *teammate.Program) {
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 && prog.Input(buf[:n]) != nil {
			return
		}
		if err != nil {
			return
		}
	}
}
