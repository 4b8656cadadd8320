package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/panes/ptyhost"
	"github.com/paneteam/paneteam/team"
)

func logsCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "logs",
		Usage: "print (or follow) an in-process teammate's output",
		Description: `Teammates running in-process (no tmux, no iTerm2) keep their terminal
output in teams/<team>/panes/<name>.log, bounded in size (the older part
is kept once, as <name>.log.1). logs prints it, line by line, with what a
terminal would act on (colours, cursor moves, a carriage return) shown as
$'…' escapes rather than done; -f keeps printing new
output until the teammate ends (or Ctrl-C). The log outlives the teammate,
so 'logs' also shows how a finished one ended.

    paneteam logs --team review --name alice
    paneteam logs --team review --name alice -f

To type into the teammate, use 'paneteam attach --team T --name N'.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "the teammate whose output to print"},
			&ucli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new output until the teammate ends"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runLogs(ctx, env, readLogsOptions(c))
		},
	}
}

// logsOptions are logs' flags.
type logsOptions struct {
	Scope  teamScope
	Name   string
	Follow bool
	JSON   bool
}

func readLogsOptions(c *ucli.Command) logsOptions {
	return logsOptions{Scope: readTeamScope(c), Name: readFlags(c).String("name"), Follow: readFlags(c).Bool("follow"), JSON: readFlags(c).Bool("json")}
}

func runLogs(ctx context.Context, env Env, o logsOptions) error {
	t, cfg, err := o.Scope.open(ctx, env)
	if err != nil {
		return err
	}
	if o.Name == "" {
		return usagef("no teammate given: pass --name NAME (members: %s)", strings.Join(cfg.MemberNames(), ", "))
	}
	paths, err := logPaths(t, cfg, o.Name)
	if err != nil {
		return err
	}
	if o.JSON {
		return printLogJSON(env, paths, o.Name)
	}
	// The log is what the teammate's program wrote to its terminal, and
	// a team folder's file any member can write: shown line by line, never
	// replayed raw (attach shows the pane itself).
	out := &visibleLines{w: env.Stdout}
	if o.Follow {
		out.idle = followIdle
		err = ptyhost.FollowLog(ctx, paths, out)
	} else {
		_, err = ptyhost.CopyLog(paths, out)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// logPaths finds the log of name. A member that has left (shut down) still
// has its log, so the member row is not required; a member in a tmux or
// iTerm2 pane has no log and is pointed at its pane.
func logPaths(t team.Team, cfg *team.Config, name string) (ptyhost.Paths, error) {
	if m := cfg.Member(name); m != nil {
		if m.BackendType != team.BackendInProcess {
			return ptyhost.Paths{}, fmt.Errorf("%s runs in a %s pane (%s), not in-process: its output is in that pane ('paneteam attach --team %s --name %s')",
				m.Name, m.BackendType, m.TmuxPaneID, t.Name, m.Name)
		}
		paths, _, err := hostOf(t, m)
		if err != nil {
			return paths, err
		}
		return paths, nil
	}
	paths := ptyhost.PathsFor(t.Dir(), name)
	if _, err := os.Stat(paths.Log); err != nil {
		return paths, fmt.Errorf("team %s has no member %q and no log for that name (members: %s)", t.Name, name, strings.Join(cfg.MemberNames(), ", "))
	}
	return paths, nil
}

type logJSON struct {
	Name     string `json:"name"`
	Log      string `json:"log"`
	Rotated  string `json:"rotated,omitempty"`
	Running  bool   `json:"running"`
	Exited   bool   `json:"exited"`
	ExitCode int    `json:"exitCode"`
	Text     string `json:"text"`
}

func printLogJSON(env Env, p ptyhost.Paths, name string) error {
	var b strings.Builder
	if _, err := ptyhost.CopyLog(p, &b); err != nil {
		return err
	}
	out := logJSON{Name: name, Log: p.Log, Text: b.String()}
	if _, err := os.Stat(p.Prev); err == nil {
		out.Rotated = p.Prev
	}
	if st, err := ptyhost.ReadState(p.State); err == nil {
		out.Running, out.Exited, out.ExitCode = st.HostAlive(), st.Exited, st.ExitCode
	}
	return printJSON(env.Stdout, out)
}

// followIdle is how long 'logs -f' holds a line without its line break
// (a prompt waiting for input) before showing it.
const followIdle = 300 * time.Millisecond
