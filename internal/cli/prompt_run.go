package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/paneteam/paneteam/internal/term/ask"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// How a prompt subcommand asks: the team found, the terminal opened, and
// the answers run as paneteam's own command.

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
		if teammatesOnly && team.IsLeadName(p.cfg, m.Name) {
			continue
		}
		out = append(out, visible.Line(m.Name))
	}
	return out
}

// resolve is the member s names: its name, the name it was spawned with
// (spawn-pane stores team.MemberName of what was typed: "it's" is member
// "it-s", and typing "it's" again finds it), or its name as offered.
func (p *prompter) resolve(s string) string {
	if m := p.cfg.Member(s); m != nil {
		return m.Name
	}
	if m := p.cfg.Member(team.MemberName(s)); m != nil {
		return m.Name
	}
	// A name with characters a terminal would act on is offered as
	// visible.Line shows it: typed back as shown, it is that member.
	for _, m := range p.cfg.Members {
		if shown := visible.Line(m.Name); shown != m.Name && shown == s {
			return m.Name
		}
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
func runPrompt(ctx context.Context, env Env, o promptOptions, questions askFunc) error {
	f, ok := env.Stdin.(*os.File)
	if !ok {
		return usagef("paneteam prompt asks on a terminal: run it in one, or in a tmux popup (display-popup -E)")
	}
	term, err := ask.Open(f, env.Stdout)
	if err != nil {
		return usagef("%v", err)
	}
	defer term.Close()
	code, err := promptOnce(ctx, env, o, term, questions)
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

func promptOnce(ctx context.Context, env Env, o promptOptions, term *ask.Terminal, questions askFunc) (int, error) {
	p := &prompter{term: term, team: o.Team}
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
	root, err := env.root(o.Root)
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
	argv := append(append([]string{"paneteam"}, o.Global...), args...)
	return Main(ctx, argv, inner), nil
}
