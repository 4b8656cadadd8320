package cli

import (
	"context"
	"fmt"
	"sync"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/agents/turnend"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

func agentsCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "agents",
		Usage: "list the agent CLIs spawn-pane --agent can start, whether they are installed, and the releases tested",
		Description: `Each agent CLI paneteam can start as a teammate ('spawn-pane --agent NAME')
is described by a profile: its argv template, how it takes the first prompt,
how paneteam's MCP server and turn-end hook are registered for that run
only, how --permission-mode and --model map to its flags, and the releases
it was tested with. paneteam ships profiles for codex, gemini and opencode;
a JSON file of the same shape in $XDG_CONFIG_HOME/paneteam/agents (else
~/.config/paneteam/agents) adds a CLI or replaces a shipped profile.

    paneteam agents
    paneteam agents --json | jq '.[] | select(.installed)'

The version shown is that of the npm package the program on PATH comes
from (its package.json), else what the program reports; "untested" means
paneteam was not tested with that release (it still runs it).`,
		Flags: []ucli.Flag{jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runAgents(ctx, env, readFlags(c).Bool("json"))
		},
	}
}

// runAgents lists every profile, each program looked for and asked its
// version at the same time.
func runAgents(ctx context.Context, env Env, asJSON bool) error {
	all, err := profile.All(env.Getenv)
	if err != nil {
		return err
	}
	rows := make([]agentRow, len(all))
	var wg sync.WaitGroup
	for i, p := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[i] = agentRowOf(ctx, env, p)
		}()
	}
	wg.Wait()
	if asJSON {
		return printJSON(env.Stdout, rows)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tCLI\tINSTALLED\tTESTED\tIDLE KNOWN BY")
	for _, r := range rows {
		inst := "no (" + r.Install + ")"
		if r.Installed {
			inst = r.Version
			if inst == "" {
				inst = "yes (version unknown)"
			}
			if !r.TestedRelease {
				inst += " (untested)"
			}
		}
		showf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Title, inst, r.Tested, r.IdleBy)
	}
	return tw.Flush()
}

// agentRow is one profile as 'paneteam agents' shows it.
type agentRow struct {
	Name          string `json:"name"`
	Title         string `json:"title"`
	Program       string `json:"program"`
	Path          string `json:"path,omitempty"`
	Installed     bool   `json:"installed"`
	Version       string `json:"version,omitempty"`
	Tested        string `json:"tested"`
	TestedMin     string `json:"testedMin,omitempty"`
	TestedMax     string `json:"testedMax,omitempty"`
	TestedRelease bool   `json:"testedRelease"`
	IdleBy        string `json:"idleBy"`
	Install       string `json:"install,omitempty"`
	Source        string `json:"source"`
}

func agentRowOf(ctx context.Context, env Env, p *profile.Profile) agentRow {
	r := agentRow{Name: p.Name, Title: p.Title, Program: p.Program, Tested: p.Tested.String(),
		TestedMin: p.Tested.Min, TestedMax: p.Tested.Max, Install: p.Install, Source: p.Source, IdleBy: "quiet output"}
	if p.IdleHook {
		r.IdleBy = "turn-end hook"
	}
	path, err := p.Locate(env.Getenv("PATH"))
	if err != nil {
		return r
	}
	r.Path, r.Installed = path, true
	r.Version = p.Version(ctx, path, env.Environ())
	r.TestedRelease = p.Tested.Contains(r.Version)
	return r
}

func agentHookCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "agent-hook",
		Usage:     "report the end of an agent CLI's turn to the team's lead (run by the CLI's own hook)",
		ArgsUsage: "AGENT [REPORT]",
		Hidden:    true,
		Description: `Run by an agent CLI's turn-end hook, as 'spawn-pane --agent' registers it
(Codex notify, Gemini CLI AfterAgent, OpenCode session.idle): reads the
hook's report, writes the idle_notification Claude Code's lead expects
(from $PANETEAM_AGENT, with the turn's last reply as its summary and
result), marks the turn's end for the teammate's wrapper and keeps the
id of the CLI session the turn was of, which 'paneteam resume' continues
(where the profile names its key, hookInput.session). Where the
profile says which report is a permission dialog in the CLI's pane
(Gemini CLI's Notification, OpenCode's permission.asked), it marks the
teammate as asking until the hook's next report of anything else.`,
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readAgentHookOptions(c)
			if err != nil {
				return err
			}
			return runAgentHook(ctx, env, o)
		},
	}
}

// agentHookOptions are agent-hook's arguments: the profile, and the
// hook's report when the CLI passes it as an argument.
type agentHookOptions struct {
	Agent  string
	Report []string
	Root   string // --root, or PANETEAM_ROOT
	Lock   lockfile.Options
}

func readAgentHookOptions(c *ucli.Command) (agentHookOptions, error) {
	if c.NArg() == 0 {
		return agentHookOptions{}, usagef("agent-hook needs the agent's profile name, such as codex")
	}
	return agentHookOptions{Agent: c.Args().First(), Report: c.Args().Tail(), Root: readFlags(c).String("root"), Lock: readLock(c)}, nil
}

// runAgentHook reads the hook's report as the profile says: the end of a
// turn writes the teammate's idle_notification (turnend.Report); a
// permission dialog in the CLI's pane marks the teammate as asking, and
// any other report clears that mark (turnend.FollowAsks).
func runAgentHook(ctx context.Context, env Env, o agentHookOptions) error {
	p, err := profile.Find(o.Agent, env.Getenv)
	if err != nil {
		return usageError{err}
	}
	obj, err := turnend.Parse(p.HookInput, o.Report, env.Stdin)
	if p.HookInput.Stdout != "" {
		fmt.Fprintln(env.Stdout, p.HookInput.Stdout)
	}
	if err != nil {
		return err
	}
	reply, ended := turnend.TurnEnd(p.HookInput, obj)
	_, asked := turnend.Asked(p.Asks, obj)
	if !ended && p.Asks == nil {
		return nil
	}
	name, agent := env.Getenv("PANETEAM_TEAM"), env.Getenv("PANETEAM_AGENT")
	if name == "" || agent == "" {
		if !ended && !asked {
			return nil // a report that would only clear a mark of no one's
		}
		return fmt.Errorf("PANETEAM_TEAM and PANETEAM_AGENT must name the teammate: run the CLI with 'paneteam spawn-pane --agent %s'", p.Name)
	}
	root, err := env.root(o.Root)
	if err != nil {
		return err
	}
	t, _, err := team.Open(root, name)
	if err != nil {
		return err
	}
	now := time.Now()
	if err := turnend.FollowAsks(t, agent, p.Asks, obj, now); err != nil {
		return err
	}
	if !ended {
		return nil
	}
	if p.HookInput.Session != "" {
		// The session the turn was of: 'paneteam resume' continues it.
		id, _ := obj[p.HookInput.Session].(string)
		if err := agentrun.WriteSession(t, agent, id); err != nil {
			warnf(env, "%v", err)
		}
	}
	return turnend.Report(ctx, t, agent, reply, env.Getenv(turnend.TurnFileVar), o.Lock, now)
}
