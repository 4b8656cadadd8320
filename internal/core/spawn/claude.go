package spawn

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Claude launches a Claude Code teammate with the command line Claude
// Code's own lead gives one at the release it runs (claudeFlags), its
// environment (claudeEnv) and, in a team paneteam leads, a fresh signing
// key.
type Claude struct {
	// Command is the claude binary and extra arguments; empty: "claude".
	Command []string
	// PermissionMode is one of mailbox.PermissionModes; "": default.
	PermissionMode string
	// Version is the release it runs; zero: unknown, started as
	// claudeversion.Tested would be. With Detector set, Check finds it.
	Version  claudeversion.Version
	Detector *claudeversion.Detector
	// NoSign starts it without a signing key: nothing written to it is
	// signed. Without NoSign it gets one when the caller acts as the lead,
	// has a key store, no Claude Code leads the team and the release takes
	// --lead-verify-key.
	NoSign bool
	// Keys is where its key is kept; nil: the caller's (post.Caller.Keys).
	Keys *provenance.Store
}

func (c *Claude) program() (string, []string) {
	if len(c.Command) == 0 {
		return "claude", nil
	}
	return c.Command[0], c.Command[1:]
}

// Check finds the binary and, with a Detector, its release ('claude
// --version', remembered per binary); an unknown release is said through
// the caller's warnings and taken as claudeversion.Tested.
func (c *Claude) Check(ctx context.Context, cwd string, caller post.Caller) error {
	prog, _ := c.program()
	if err := Preflight(prog, cwd, caller.Env("PATH")); err != nil {
		return err
	}
	if c.Detector == nil {
		return nil
	}
	path := prog
	if !strings.Contains(prog, "/") {
		p, err := program.Find(prog, caller.Env("PATH"))
		if err != nil {
			return nil
		}
		path = p
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	v, err := c.Detector.Detect(ctx, path)
	if err != nil {
		if caller.Warn != nil {
			caller.Warn("could not tell which Claude Code %s is (%v); starting it as Claude Code %s would be", prog, err, claudeversion.Tested)
		}
		v = claudeversion.Version{}
	}
	c.Version = v
	return nil
}

// Detector is the release detector for a Claude Code binary, remembering
// each binary's release in paneteam's state folder.
func Detector(caller post.Caller, environ []string) *claudeversion.Detector {
	d := &claudeversion.Detector{Env: environ}
	if caller.Getenv == nil {
		return d
	}
	if dir, err := provenance.StateDir(caller.Getenv); err == nil {
		d.CacheFile = filepath.Join(dir, "claude-versions.json")
	}
	return d
}

// Prepare readies a Claude Code teammate's inbox before its command
// exists and gives it a session id of its own (--session-id, unless the
// person's arguments choose its session), so its transcript is found
// again by its launch record, in Claude Code's order (§14): a fresh key stamped now, then the
// inbox cleared to [] so nothing older than the key is waiting, then (by
// Run) the prompt written signed, then the command started. Launch.Undo
// forgets the key.
func (c *Claude) Prepare(ctx context.Context, s Setup) (Prepared, error) {
	l := claudeLaunch{version: c.Version, backend: s.Backend}
	var out Prepared
	if keys, ok := c.signs(s); ok {
		inbox := s.Team.InboxPath(s.Member.Name)
		key, err := keys.Create(inbox, time.Now())
		if err != nil {
			return Prepared{}, fmt.Errorf("make %s's signing key: %w", s.Member.Name, err)
		}
		forget := func() { keys.Forget(inbox) } //nolint:errcheck
		if err := mailbox.New(inbox, s.Lock).Reset(ctx); err != nil {
			forget()
			return Prepared{}, fmt.Errorf("clear %s's inbox: %w", s.Member.Name, err)
		}
		l.key = key
		out.Signer, out.Keyed, out.Undo = provenance.Lead{Store: keys}, true, forget
	}
	_, extra := c.program()
	sid, own := personSession(extra)
	if !own {
		sid = mailbox.NewMsgID()
		l.session = sid
	}
	out.Argv, out.Env = c.argv(s, l)
	out.CLI, out.SessionID, out.Shutdown = "claude", sid, team.ShutdownAsk
	out.ConfigDir = s.Root
	if out.ConfigDir == "" {
		out.ConfigDir = ClaudeConfigDir(s.Caller.Env)
	}
	return out, nil
}

// signs says whether the teammate gets a key, and the store it goes in.
// A team Claude Code leads (a valid leadProcess, docs/PROTOCOL.md §3,
// alive or not) never gives one: Claude's lead could not sign for it, and
// paneteam must not speak as that lead.
func (c *Claude) signs(s Setup) (provenance.Store, bool) {
	if c.NoSign || !s.Caller.ActsAsLead() || !c.Version.Features().LeadVerifyKey {
		return provenance.Store{}, false
	}
	if _, claudeLeads := s.Config.LeadProcess(); claudeLeads {
		return provenance.Store{}, false
	}
	if c.Keys != nil {
		return *c.Keys, true
	}
	keys, err := s.Caller.Keys()
	return keys, err == nil
}

// argv is the teammate's command line and the variables added to its
// environment: the paneteam ones (TeammateEnv) and Claude Code's own.
func (c *Claude) argv(s Setup, l claudeLaunch) (argv, env []string) {
	bin, extra := c.program()
	argv = append([]string{bin}, claudeFlags(s.Config, s.Member, c.PermissionMode, l)...)
	if l.session != "" {
		argv = append(argv, "--session-id", l.session)
	}
	return append(argv, extra...), append(TeammateEnv(s), claudeEnv(s.Caller, s.Root)...)
}
