package router

import (
	"fmt"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/team"
)

// Lead is what 'paneteam claude' knows when it puts the router under
// its Claude's pane teammates.
type Lead struct {
	Getenv func(string) string // the lead's environment
	State  string              // paneteam's state folder
	Exe    string              // the paneteam binary
	Claude string              // the Claude the lead runs
	// Argv is Claude's command line as the lead runs it, without the
	// program: a --resume or --continue there makes the router bring
	// teammates back (Config.Resumed).
	Argv []string
	// Want are the agent CLIs to offer by name ("none" for none); nil
	// reads claude.json (ReadOffer), else offers every one installed.
	Want []string
	// Theirs is the person's own --agents value ("" for none).
	Theirs   string
	Worktree bool
	Budget   float64
}

// Routing is the router set up for a lead: the link to give Claude as
// its EnvTeammateCommand, the arguments to add to Claude's (--agents and
// its value, or none), the agent types offered (never nil) and what to
// tell the person.
type Routing struct {
	Link    string
	Args    []string
	Offered []string
	Notes   []string
}

// UsageError is a choice of the person's the router cannot take (an
// agent CLI that is not one, an --agents value that is not JSON): a
// front end shows it as a usage error.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Prepare puts the router under every pane teammate of l's Claude and
// offers Claude's lead an agent type per agent CLI chosen, merged with
// the person's own.
func Prepare(l Lead) (Routing, error) {
	var out Routing
	want := l.Want
	if want == nil {
		w, err := ReadOffer(l.Getenv)
		if err != nil {
			return Routing{}, err
		}
		want = w
	}
	all, err := profile.All(l.Getenv)
	if err != nil {
		// A broken profile of the person's costs the offer, not Claude.
		out.Notes = append(out.Notes, fmt.Sprintf("no agent CLI is offered to Claude's lead: %v", err))
		all = nil
	}
	picked, notes, err := Offer(all, want, l.Getenv("PATH"))
	if err != nil {
		return Routing{}, &UsageError{err}
	}
	out.Notes = append(out.Notes, notes...)
	agents, offered, notes, err := MergeAgents(l.Theirs, Definitions(picked))
	if err != nil {
		return Routing{}, &UsageError{err}
	}
	out.Notes = append(out.Notes, notes...)
	if l.Theirs != "" || len(offered) > 0 {
		out.Args = []string{"--agents", agents}
	}
	rc := Config{Claude: l.Claude, Offered: offered, Exe: l.Exe, Worktree: l.Worktree, Budget: l.Budget,
		Resumed: spawn.ReadSessionFlags(l.Argv, nil).Resuming}
	// A person's own teammate program stays theirs, for every type paneteam
	// does not run.
	if own := l.Getenv(EnvTeammateCommand); own != "" {
		if rc.Claude, err = teammateProgram(own, l.Getenv("PATH")); err != nil {
			return Routing{}, err
		}
	}
	if out.Link, err = Install(l.State, rc); err != nil {
		return Routing{}, err
	}
	out.Offered = offered
	if out.Offered == nil {
		out.Offered = []string{}
	}
	return out, nil
}

// teammateProgram is the program the person's own EnvTeammateCommand
// (own) names. Claude ran it through a shell, which searched PATH; the
// router execs it, from the teammate's folder (a worktree's, with
// --worktree), so by its absolute path. One that is itself a router (a
// lead started from another lead's shell) is not routed twice: its
// Claude is.
func teammateProgram(own, path string) (string, error) {
	found, err := program.Lookup(own, path)
	if err == nil {
		found, err = filepath.Abs(found)
	}
	if err != nil {
		return "", fmt.Errorf("%s=%s: %v: set it to your teammate program's full path, or unset it", EnvTeammateCommand, own, err)
	}
	if IsRouter(found) {
		if inner, err := Load(found); err == nil {
			return inner.Claude, nil
		}
	}
	return found, nil
}

// LeadResumeNote is what 'paneteam claude' says when Claude's own
// arguments (args) resume a session without forking it: the teammates
// that session's lead had, which Claude does not bring back (ResumeNote,
// from the launch records in state). "" otherwise.
func LeadResumeNote(getenv func(string) string, state string, args []string) string {
	f := spawn.ReadSessionFlags(args, nil)
	if f.Resumed == "" || f.Fork {
		return ""
	}
	root, err := team.Root("", getenv)
	if err != nil {
		return ""
	}
	return ResumeNote(f.Resumed, launches.Open(state).ByLead(root, f.Resumed))
}
