package resume

import (
	"fmt"
	"slices"

	"github.com/paneteam/paneteam/internal/core/launches"
)

// AgentSession is the agent CLI session the teammate of a launch record
// continues, or "" and why it cannot: the agent layer's answer (its
// profile's resume, the session its hook kept), which this package,
// below it, cannot read.
type AgentSession func(rec launches.Record) (id, why string)

// cliSessionFlag is the flag of 'paneteam teammate --agent' naming the CLI's
// own session to continue.
const cliSessionFlag = "--cli-session"

// agentPlan continues an agent CLI teammate's own session: the wrapper
// it ran under ('paneteam teammate --agent NAME ...') again, told which
// session of the CLI's to go on with, so its MCP tools, its turn-end
// hook and its notices are as they were. Without a session to continue
// it starts a fresh one, and is told so.
func agentPlan(rec launches.Record, session AgentSession) plan {
	why := "paneteam cannot tell which session it ran"
	if session != nil {
		var id string
		if id, why = session(rec); id != "" {
			if args, ok := withCLISession(rec.Args, id); ok {
				return plan{argv: append([]string{rec.Program}, args...), env: envOf(rec), how: Continued, session: id}
			}
			why = "its command line is not paneteam's agent teammate"
		}
	}
	return freshAgent(rec, why)
}

// freshAgent starts an agent CLI teammate in a new session of its CLI
// (its launch as it ran, which starts one), told so before it starts.
func freshAgent(rec launches.Record, why string) plan {
	args := slices.Clone(rec.Args)
	if i := slices.Index(args, cliSessionFlag); i >= 0 && i+1 < len(args) {
		args = slices.Delete(args, i, i+2)
	}
	return plan{argv: append([]string{rec.Program}, args...), env: envOf(rec), how: Fresh,
		note: fmt.Sprintf("%s's own session is not continued (%s): it starts a fresh one, and is told so", rec.CLI, why),
		tell: "Your team stopped (its panes went away) and paneteam started you again, in a fresh " + rec.CLI +
			" session: what you did before is not in this conversation. Look at the task list for the tasks you own " +
			"and what is left of them, and ask the lead if you need more."}
}

// withCLISession is the wrapper's arguments ("teammate ... --agent NAME
// ...") told to continue session id, in place of any session it was
// told before; false when args are not the wrapper's.
func withCLISession(args []string, id string) ([]string, bool) {
	if len(args) == 0 || args[0] != "teammate" || !slices.Contains(args, "--agent") {
		return nil, false
	}
	out := []string{args[0], cliSessionFlag, id}
	for i := 1; i < len(args); i++ {
		if args[i] == "--" {
			out = append(out, args[i:]...)
			break
		}
		if args[i] == cliSessionFlag && i+1 < len(args) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out, true
}
