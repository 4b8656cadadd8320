package resume

import (
	"fmt"

	"github.com/paneteam/paneteam/internal/term/visible"
)

// howWords says each Started.How as a person reads it.
var howWords = map[string]string{
	Continued: "its conversation continued", Restarted: "started again",
	Fresh: "started fresh", Reconnected: "reconnected",
}

// Lines says what r did (or, in a dry run, would do), member by member,
// as every front end shows it: what started where, what was left alone
// and why, what was not started and why, and who leads the team now.
// Every name and reason passes through visible.Line, so a member's name
// holding a terminal escape arrives as visible characters.
func (r *Result) Lines() []string {
	var out []string
	say := func(format string, args ...any) {
		for i, a := range args {
			if s, ok := a.(string); ok {
				args[i] = visible.Line(s)
			}
		}
		out = append(out, fmt.Sprintf(format, args...))
	}
	if len(r.Started) == 0 {
		say("team %s: nothing to start", r.Team)
	}
	for _, s := range r.Started {
		what := howWords[s.How]
		switch {
		case s.Error != "":
			say("%s/%s: not started: %s", r.Team, s.Name, s.Error)
		case r.DryRun:
			say("%s/%s: would be %s in %s", r.Team, s.Name, what, s.Backend)
		default:
			say("%s/%s: %s in %s pane %s", r.Team, s.Name, what, s.Backend, s.PaneID)
		}
		if s.Note != "" && s.Error == "" {
			say("  note: %s", s.Note)
		}
	}
	why := map[string]string{}
	for _, l := range r.Left {
		why[l.Name] = l.Why
	}
	for _, n := range r.Running {
		if why[n] != "" {
			// How paneteam knows: its recorded process, or its pane, never
			// the row in config.json alone.
			say("%s/%s: still running, left alone (%s)", r.Team, n, why[n])
			continue
		}
		say("%s/%s: still running, left alone", r.Team, n)
	}
	for _, s := range r.Skipped {
		say("%s/%s: not started: %s", r.Team, s.Name, s.Why)
	}
	if r.LeaderPID != nil && !r.DryRun {
		say("team %s: led by process %d", r.Team, *r.LeaderPID)
	}
	return out
}
