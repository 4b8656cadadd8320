package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/agents/launch"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/agents/turnend"
	"github.com/paneteam/paneteam/internal/core/teammate"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// agentTeammateFlags are teammate's flags for an agent CLI (--agent).
func agentTeammateFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "agent", Usage: "run the agent CLI this profile describes (codex, gemini, opencode; see 'paneteam agents') with the team's MCP tools and its turn-end hook"},
		&ucli.StringFlag{Name: "prompt", Usage: "with --agent: the first prompt"},
		&ucli.StringFlag{Name: "model", Usage: "with --agent: the model"},
		&ucli.StringFlag{Name: "permission-mode", Usage: "with --agent: " + fmt.Sprint(permissionModes) + ", mapped to the CLI's own flags"},
	}
}

// runAgentTeammate prepares the agent CLI's run from its profile and
// runs it under a pseudo-terminal, following its turns through its hook
// (teammate.Turns): messages are announced between turns only, as a fixed
// notice; a shutdown types the CLI's own quit before any signal.
func runAgentTeammate(ctx context.Context, c *ucli.Command, env Env, tc teammate.Config, argv []string) error {
	p, err := profile.Find(c.String("agent"), env.Getenv)
	if err != nil {
		return usageError{err}
	}
	if len(argv) > 0 {
		return usagef("--agent builds the command line from the %s profile: give no COMMAND", p.Name)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the current folder: %w", err)
	}
	prog, err := agentProgram(p, env)
	if err != nil {
		return err
	}
	l, err := launch.Prepare(launch.Request{
		Profile: p, Team: tc.Team, Agent: tc.Name, Cwd: cwd, Paneteam: env.Exe,
		Prompt: c.String("prompt"), Model: c.String("model"), PermissionMode: c.String("permission-mode"), Getenv: env.Getenv,
	})
	if err != nil {
		return err
	}
	l.Argv[0] = prog
	turns := launch.TurnFile(tc.Team, tc.Name)
	vars := map[string]string{}
	for k, v := range env.Vars {
		vars[k] = v
	}
	for _, kv := range append(l.Env, turnend.TurnFileVar+"="+turns) {
		k, v, _ := cutEq(kv)
		vars[k] = v
	}
	env.Vars = vars
	if p.IdleHook {
		if err := markIdleByHook(ctx, tc); err != nil {
			return err
		}
		marked := false
		tc.Turns = &teammate.Turns{Settle: agentSettle, Ended: func() int {
			b, _ := os.ReadFile(turns)
			n := bytes.Count(b, []byte("\n"))
			if n > 0 && !marked {
				// Again once the pane is recorded (spawn-pane writes the
				// member's paneteam fields after the pane starts).
				marked = markIdleByHook(ctx, tc) == nil
			}
			return n
		}}
	}
	return runWrappedAs(ctx, env, tc, l.Argv, func(prog *teammate.Program) teammate.Agent {
		prog.EnterDelay = agentEnterDelay
		return quitFirst{Program: prog, quit: p.Quit, notice: tc.Turns == nil}
	})
}

// markIdleByHook records in the member's paneteam fields that its idle is
// known from its CLI's hook (status shows it).
func markIdleByHook(ctx context.Context, tc teammate.Config) error {
	_, err := tc.Team.Update(ctx, tc.Lock, func(cfg *team.Config) error {
		m := cfg.Member(tc.Name)
		if m == nil || m.Paneteam != nil && m.Paneteam.IdleBy == team.IdleByHook {
			return team.ErrNoChange
		}
		if m.Paneteam == nil {
			m.Paneteam = &team.MemberMeta{}
		}
		m.Paneteam.IdleBy = team.IdleByHook
		return nil
	})
	return err
}

func cutEq(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// agentEnterDelay separates a notice from its Enter: agent CLIs take an
// Enter that arrives with a burst of keys as part of a paste.
const agentEnterDelay = 300 * time.Millisecond

// agentSettle is how long an agent CLI's screen must be quiet after a
// turn's end before a notice is typed.
const agentSettle = 500 * time.Millisecond

// quitGrace is how long an agent CLI gets to end after its quit command
// before it is hung up on.
const quitGrace = 5 * time.Second

// quitFirst ends the program with its own quit command (typed as keys,
// then Enter) and only then, if it is still there, by hanging up.
type quitFirst struct {
	*teammate.Program
	quit string
	// notice makes Deliver type the fixed notice instead of the text.
	notice bool
}

// Deliver types the fixed notice, never the message: an agent CLI reads
// its messages with its team tools. (With a hook the loop types notices
// itself; this covers profiles whose idle is guessed from quiet output.)
func (q quitFirst) Deliver(ctx context.Context, m mailbox.Message, text string) error {
	if q.notice {
		text = teammate.Notice([]string{m.From})
	}
	return q.Program.Deliver(ctx, m, text)
}

func (q quitFirst) Stop(ctx context.Context) error {
	if q.quit != "" {
		if q.Input([]byte(q.quit)) == nil {
			time.Sleep(agentEnterDelay)
			q.Input([]byte("\r"))
			select {
			case <-q.Done():
				return nil
			case <-time.After(quitGrace):
			case <-ctx.Done():
			}
		}
	}
	return q.Program.Stop(ctx)
}
