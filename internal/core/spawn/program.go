package spawn

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// A Program builds what a teammate runs: its command line and the
// variables added to its environment. Starting it is the backend's job.
type Program interface {
	// Check runs before anything is written: the program exists (seen
	// from cwd, through the caller's PATH), its release is known.
	Check(ctx context.Context, cwd string, caller post.Caller) error
	// Prepare builds the command once the member's row is final, and
	// readies what it depends on (a signing key); Launch.Undo takes that
	// back if the spawn then fails.
	Prepare(ctx context.Context, s Setup) (Prepared, error)
}

// Setup is what a teammate's command is built from.
type Setup struct {
	Team team.Team
	// Config is the team as it was just before the member was added.
	Config *team.Config
	// Member is the row as added: its final name, colour and folder.
	Member team.Member
	Lock   lockfile.Options
	// Backend is the name of the backend that starts it.
	Backend string
	// Root is Request.Root: PANETEAM_ROOT as the person gave it, or "".
	Root   string
	Caller post.Caller
}

// Prepared is a teammate's prepared command.
type Prepared struct {
	Argv []string
	// Env is added to the command's environment (KEY=VALUE).
	Env []string
	// Signer signs what is written to it as its lead (its first prompt);
	// nil signs nothing. Keyed says it believes its lead only when signed.
	Signer mailbox.Signer
	Keyed  bool
	// Undo takes back what Prepare made; nil when nothing.
	Undo func()
	// Started, when set, is called once the backend has started the
	// member's pane (a failed spawn calls Undo instead).
	Started func()
	// CLI is what the teammate runs, for its launch record and its
	// member's paneteam record: "claude", an agent profile's name, or ""
	// for a command of the person's.
	CLI string
	// SessionID is the Claude Code session id it starts with, "" when
	// unknown (not Claude Code, or resumed from the person's own flags).
	SessionID string
	// ConfigDir is the folder the CLI keeps its own records in (Claude
	// Code's config folder, an agent CLI's run folder), for its launch
	// record: where its usage is read.
	ConfigDir string
	// Shutdown is how the teammate is stopped, for its member's record
	// (team.MemberMeta.Shutdown): team.ShutdownAsk when what it runs
	// answers a shutdown_request, team.ShutdownEnd when it cannot.
	Shutdown string
	// Host, HostCwd and HostArgv say where and what the teammate really
	// runs when that is on another host (Remote): Argv is then the ssh
	// session the pane here shows. HostCwd "": the remote user's home.
	Host, HostCwd string
	HostArgv      []string
}

// Command is a launcher for any program: Argv is run as is, with the
// paneteam variables (TeammateEnv).
type Command struct {
	Argv []string
	// Answers says the program reads its inbox and answers a
	// shutdown_request itself (a script of the person's that speaks the
	// protocol), which paneteam cannot tell from its command line.
	Answers bool
	// Self is the running paneteam's path: an Argv[0] naming it runs
	// paneteam, whatever its file is called.
	Self string
}

// Check finds the program (Preflight).
func (c Command) Check(_ context.Context, cwd string, caller post.Caller) error {
	if len(c.Argv) == 0 {
		return fmt.Errorf("no command to run: give the program and its arguments")
	}
	return Preflight(c.Argv[0], cwd, caller.Env("PATH"))
}

// Prepare returns the command line and the paneteam variables.
func (c Command) Prepare(_ context.Context, s Setup) (Prepared, error) {
	stop := team.ShutdownEnd
	if c.Answers || RunsTeammate(c.Argv, c.Self) {
		stop = team.ShutdownAsk
	}
	return Prepared{Argv: c.Argv, Env: TeammateEnv(s), Shutdown: stop}, nil
}

// RunsTeammate reports whether argv is paneteam's teammate loop
// ('paneteam teammate', bare or wrapping a program, after any of
// paneteam's own flags; paneteam named so or by self, its path), which reads the inbox and answers a
// shutdown_request. Any other program never sees its inbox, so a
// shutdown request to it could only be waited on. When in doubt it says
// yes: a member wrongly taken to answer is only waited for, as before.
func RunsTeammate(argv []string, self string) bool {
	if len(argv) < 2 || !strings.HasPrefix(filepath.Base(argv[0]), "paneteam") && (self == "" || argv[0] != self) {
		return false
	}
	for _, a := range argv[1:] {
		if a == "--" {
			return false // the wrapped program's own arguments follow
		}
		if a == "teammate" {
			return true
		}
	}
	return false
}

// TeammateEnv is what every teammate's environment gets: PANETEAM_TEAM,
// PANETEAM_AGENT, and PANETEAM_ROOT when a root was given.
func TeammateEnv(s Setup) []string {
	env := []string{"PANETEAM_TEAM=" + s.Team.Name, "PANETEAM_AGENT=" + s.Member.Name}
	if s.Root != "" {
		env = append(env, "PANETEAM_ROOT="+s.Root)
	}
	return env
}

// withRoot makes sure a teammate's environment names its team root: a pane
// left behind once its team folder is gone (Claude Code deletes its
// session team at exit) can then be told from a pane of a team under
// another root (lifecycle.Reap).
func withRoot(env []string, root string) []string {
	return envlist.Default(env, "PANETEAM_ROOT", root)
}

// Preflight finds the program before any pane exists, so a typo fails
// cleanly, without a member row or a dead pane.
func Preflight(prog, cwd, path string) error {
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if !program.Executable(p) {
			return fmt.Errorf("cannot run %s: not an executable file (seen from %s)", prog, cwd)
		}
		return nil
	}
	if _, err := program.Find(prog, path); err != nil {
		return fmt.Errorf("cannot run %s: %w (install it or give its full path)", prog, exec.ErrNotFound)
	}
	return nil
}
