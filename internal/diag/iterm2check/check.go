// Package iterm2check explains, for 'paneteam iterm2 doctor', which pane
// backend paneteam would choose where it runs and why: whether it is
// inside tmux or iTerm2, which it2 it finds and whether that it2 can
// reach iTerm2's Python API ('it2 session list', not 'it2 --version',
// which succeeds even when the API is off), and the choice with its
// reason and the fix for every fallback.
package iterm2check

import (
	"fmt"
	"io"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/iterm2"
)

// Report is what the check found.
type Report struct {
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

// Run looks at the world as the backends see it (env: its variables, its
// PATH lookup) and judges the backend requested ("" for
// $PANETEAM_BACKEND, else the automatic choice), as spawning would.
func Run(env backend.Env, requested string) Report {
	r := Report{
		InsideTmux:     env.Getenv("TMUX") != "",
		InITerm2:       backend.InITerm2(env),
		TermProgram:    env.Getenv("TERM_PROGRAM"),
		ITermSessionID: env.Getenv("ITERM_SESSION_ID"),
		LeadSession:    iterm2.SessionFromEnv(env.Getenv("ITERM_SESSION_ID")),
	}
	r.It2, _ = env.Find("it2")
	r.Tmux, _ = env.Find("tmux")
	if err := backend.ProbeITerm2(env); err != nil {
		r.It2Error = err.Error()
	} else {
		r.It2Works = true
	}
	d, err := backend.Decide(env, nil, requested)
	r.Choice = d
	if err != nil {
		r.ChoiceError = err.Error()
	}
	return r
}

// Write shows r to a person, one finding a line.
func Write(w io.Writer, r Report) {
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

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
