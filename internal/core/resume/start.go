package resume

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// start brings one member back and says how.
func (o Options) start(ctx context.Context, m member) Started {
	s := Started{Name: m.row.Name, CLI: orNil(m.rec.CLI)}
	if m.rec.Host != "" {
		return o.reconnect(ctx, m, s)
	}
	p := planFor(m.rec, o.AgentSession)
	s.How, s.Note, s.SessionID = p.how, p.note, orNil(p.session)
	cfg, err := team.Load(o.Team.ConfigPath())
	if err != nil {
		s.Error = err.Error()
		return s
	}
	b, note, err := o.backendFor(cfg, m)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.Backend, s.Note = b.Name(), joinNote(s.Note, note)
	if o.DryRun {
		return s
	}
	if dead := recordedRow(m.row, &m.rec); dead.TmuxPaneID != "" {
		// The dead pane, where its backend still shows one, on the server
		// paneteam recorded (not one the row was changed to name): only a
		// pane carrying this member's id is ever closed.
		if old, err := backend.ForMember(o.BackendEnv, cfg, &dead); err == nil {
			old.Kill(ctx, cfg, &dead) //nolint:errcheck // gone already is the usual case
		}
	}
	pane, err := o.spawn(ctx, b, cfg, m, p)
	var exited *backend.ExitedError
	if err != nil && p.how == Continued && errors.As(err, &exited) {
		// This release would not resume the session: start it fresh,
		// told (a Claude Code teammate, where its conversation is).
		if pane.ID != "" {
			backend.Discard(ctx, b, cfg, m.row, pane) //nolint:errcheck // the dead pane shown why; a fresh one follows
		}
		if m.rec.CLI == "claude" {
			p = freshClaude(m.rec, fmt.Sprintf("Claude Code would not resume session %s (%s)", m.rec.SessionID, lastLine(exited.Output)), p.earlier)
		} else {
			// The CLI's complaint comes first; the wrapper's report of
			// its exit, with the whole command line, last.
			p = freshAgent(m.rec, fmt.Sprintf("%s would not continue session %s: %s", m.rec.CLI, p.session, firstLine(exited.Output)))
		}
		s.How, s.SessionID, s.Note = p.how, orNil(p.session), joinNote(p.note, note)
		pane, err = o.spawn(ctx, b, cfg, m, p)
	}
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.PaneID, s.Backend = pane.ID, pane.Backend
	if err := o.record(ctx, b, m, p, pane); err != nil {
		s.Error = err.Error()
	}
	return s
}

// spawn tells the member, when it starts without its earlier session,
// then starts its pane.
func (o Options) spawn(ctx context.Context, b backend.Backend, cfg *team.Config, m member, p plan) (backend.Pane, error) {
	if p.tell != "" {
		if err := o.tell(ctx, cfg, m.row.Name, p.tell); err != nil && o.Caller.Warn != nil {
			o.Caller.Warn("warning: %s starts again without its earlier session, and could not be told so: %v", m.row.Name, err)
		}
	}
	check := o.StartupCheck
	if check == 0 {
		check = spawn.DefaultStartupCheck
	}
	if p.how == Continued && check < ClaudeStartupCheck {
		check = ClaudeStartupCheck
	}
	row := m.row
	row.Cwd = m.rec.Cwd
	return b.Spawn(ctx, backend.Spec{Team: o.Team, Config: cfg, Member: row, Argv: withPath(p.argv, p.env), Env: p.env,
		Layout: backend.TeamLayout(cfg), StartupCheck: check})
}

// tell writes text to name's inbox as the lead (signed when the caller
// signs), before it starts, so it is the first thing it reads.
func (o Options) tell(ctx context.Context, cfg *team.Config, name, text string) error {
	from, err := o.Caller.LeadSender(cfg)
	if err != nil {
		return err
	}
	p, err := o.Caller.Open(o.Team, cfg, o.Lock, from, []string{name}, "")
	if err != nil {
		return err
	}
	_, err = p.Send(ctx, name, mailbox.Message{Text: text, Summary: "you were started again"})
	return err
}

// backendFor is the backend the member ran on when it is there, else the
// one the environment gives, with a note saying so.
func (o Options) backendFor(cfg *team.Config, m member) (backend.Backend, string, error) {
	want := m.rec.Backend
	if want == "" {
		want = m.row.BackendType
	}
	var why error
	if want != "" {
		b, err := backend.Choose(o.BackendEnv, cfg, want)
		if err == nil {
			return b, "", nil
		}
		why = err
	}
	b, err := backend.Choose(o.BackendEnv, cfg, backend.Auto)
	if err != nil {
		return nil, "", err
	}
	if why == nil {
		return b, "", nil
	}
	return b, fmt.Sprintf("it ran in %s, which is not here (%v): started in %s instead", want, why, b.Name()), nil
}

// record points the member's row and its launch record at the new pane.
func (o Options) record(ctx context.Context, b backend.Backend, m member, p plan, pane backend.Pane) error {
	_, err := o.Team.Update(ctx, o.Lock, func(cur *team.Config) error {
		row := cur.Member(m.row.Name)
		if row == nil || row.AgentID != m.row.AgentID {
			return fmt.Errorf("%s left the team while it started again (pane %s runs)", m.row.Name, pane.ID)
		}
		spawn.SetPane(row, pane)
		backend.Record(cur, b)
		return nil
	})
	if err != nil {
		if derr := backend.Discard(ctx, b, nil, m.row, pane); derr != nil {
			err = fmt.Errorf("%w (and ending its pane %s failed: %v)", err, pane.ID, derr)
		}
		return err
	}
	rec := m.rec
	rec.Backend, rec.Pane, rec.Started = pane.Backend, pane.ID, ""
	spawn.SetProcess(&rec, pane)
	switch {
	case m.rec.CLI == "claude" && p.how == Fresh && p.session != "":
		rec.SessionID, rec.Program, rec.Args = p.session, p.argv[0], p.argv[1:]
	case m.rec.CLI != "claude":
		// The agent CLI's session it now runs ("" for a fresh one, which
		// its hook names at its first turn's end); its command line stays
		// the first run's, which resume tells which session to continue.
		rec.CLISession = ""
		if p.how == Continued {
			rec.CLISession = p.session
		}
	}
	if err := o.Records.Write(rec); err != nil {
		return fmt.Errorf("it runs, but its launch record still names its old pane: %w", err)
	}
	return nil
}

func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// envProgram sets a variable for the program it then runs, finding the
// program on the PATH it was given.
const envProgram = "/usr/bin/env"

// withPath is argv run with the PATH the teammate was started with,
// when one was recorded: a backend's own PATH wins over a PATH in the
// pane's environment (tmux gives a new pane its client's, here the
// resuming process's, which from a hook or cron is not the person's), and
// the program is found on it.
func withPath(argv, env []string) []string {
	path, ok := envlist.Lookup(env, "PATH")
	if !ok {
		return argv
	}
	if st, err := os.Stat(envProgram); err != nil || st.IsDir() {
		return argv
	}
	return append([]string{envProgram, "PATH=" + path}, argv...)
}
