package cli

import (
	"context"
	"fmt"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/iterm2"
)

func iterm2Command(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "iterm2",
		Usage: "iTerm2 kit: teammate profiles, and why paneteam does or does not use iTerm2 splits",
		Description: `paneteam puts teammates in iTerm2 split panes when it runs inside iTerm2
(not inside tmux) and iTerm2's it2 program can reach iTerm2's Python API.

    paneteam iterm2 doctor     # what paneteam sees and would choose, and fixes
    paneteam iterm2 profile > ~/Library/Application\ Support/iTerm2/DynamicProfiles/paneteam.json`,
		Commands: []*ucli.Command{iterm2ProfileCommand(env), iterm2DoctorCommand(env)},
	}
}

func iterm2ProfileCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "profile",
		Usage: "print an iTerm2 Dynamic Profiles file for teammates' panes (JSON)",
		Description: `Prints one profile per team colour ("paneteam red", "paneteam blue", ...):
a tab of the teammate's colour, a badge with the agent's name and what it is
doing, and triggers that mark a teammate waiting for an answer (they set a
user variable and post a notification; none runs a command).

Install it, then open teammates with the profile of their colour:

    paneteam iterm2 profile > ~/Library/Application\ Support/iTerm2/DynamicProfiles/paneteam.json
    export PANETEAM_ITERM2_PROFILES=1

The output is JSON already; --json is accepted for symmetry.`,
		Flags: []ucli.Flag{jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.NArg() != 0 {
				return usagef("iterm2 profile takes no arguments")
			}
			b, err := iterm2.ProfileJSON()
			if err != nil {
				return err
			}
			_, err = env.Stdout.Write(b)
			return err
		},
	}
}

// iterm2Report is what 'iterm2 doctor' found.
type iterm2Report struct {
	InsideTmux     bool             `json:"insideTmux"`
	InITerm2       bool             `json:"inITerm2"`
	TermProgram    string           `json:"termProgram"`
	ITermSessionID string           `json:"itermSessionId"`
	LeadSession    string           `json:"leadSession"`
	It2            string           `json:"it2"`
	It2Works       bool             `json:"it2Works"`
	It2Error       string           `json:"it2Error,omitempty"`
	Tmux           string           `json:"tmux"`
	Choice         backend.Decision `json:"choice"`
	ChoiceError    string           `json:"choiceError,omitempty"`
}

func iterm2DoctorCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "doctor",
		Usage: "explain which backend paneteam would choose here, and how to get iTerm2 splits",
		Description: `Shows what the backend choice sees (tmux, iTerm2, it2, the lead's session)
and what it decides, with the reason and fix for every fallback. It runs
'it2 session list' (not 'it2 --version', which succeeds even when iTerm2's
Python API is off).

    paneteam iterm2 doctor
    paneteam iterm2 doctor --backend iterm2 --json`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "backend", Usage: "judge this request (auto, tmux, iterm2, in-process) instead of $PANETEAM_BACKEND"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			r := iterm2Doctor(env, c.String("backend"))
			if c.Bool("json") {
				return printJSON(env.Stdout, r)
			}
			printITerm2Report(env, r)
			return nil
		},
	}
}

func iterm2Doctor(env Env, requested string) iterm2Report {
	be := backendEnv(env)
	r := iterm2Report{
		InsideTmux:     env.Getenv("TMUX") != "",
		InITerm2:       backend.InITerm2(be),
		TermProgram:    env.Getenv("TERM_PROGRAM"),
		ITermSessionID: env.Getenv("ITERM_SESSION_ID"),
		LeadSession:    iterm2.SessionFromEnv(env.Getenv("ITERM_SESSION_ID")),
	}
	r.It2, _ = be.LookPath("it2")
	r.Tmux, _ = be.LookPath("tmux")
	if err := backend.ProbeITerm2(be); err != nil {
		r.It2Error = err.Error()
	} else {
		r.It2Works = true
	}
	d, err := backend.Decide(be, nil, requested)
	r.Choice = d
	if err != nil {
		r.ChoiceError = err.Error()
	}
	return r
}

func printITerm2Report(env Env, r iterm2Report) {
	w := env.Stdout
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	orNone := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	fmt.Fprintf(w, "inside tmux:       %s\n", yes(r.InsideTmux))
	fmt.Fprintf(w, "inside iTerm2:     %s (TERM_PROGRAM=%s, ITERM_SESSION_ID=%s)\n", yes(r.InITerm2), orNone(r.TermProgram), orNone(r.ITermSessionID))
	fmt.Fprintf(w, "lead session:      %s\n", orNone(r.LeadSession))
	fmt.Fprintf(w, "it2:               %s\n", orNone(r.It2))
	if r.It2Works {
		fmt.Fprintf(w, "it2 session list:  works\n")
	} else {
		fmt.Fprintf(w, "it2 session list:  fails: %s\n", r.It2Error)
	}
	fmt.Fprintf(w, "tmux:              %s\n", orNone(r.Tmux))
	if r.ChoiceError != "" {
		fmt.Fprintf(w, "backend:           none: %s\n", r.ChoiceError)
		return
	}
	fmt.Fprintf(w, "backend:           %s (%s)\n", r.Choice.Backend, r.Choice.Reason)
	for _, n := range r.Choice.Notes {
		fmt.Fprintf(w, "note:              %s\n", n)
	}
}
