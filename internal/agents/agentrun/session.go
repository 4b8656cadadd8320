package agentrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// SessionFile is where the CLI's hook keeps the id of the session the
// teammate runs (the profile's hookInput.session): in the run's folder,
// with the CLI's own home, so a teammate of the same name in another
// team or root never finds it.
func SessionFile(t team.Team, agent string) string { return filepath.Join(Home(t, agent), "session") }

// WriteSession records id as the teammate's session, when it is one
// paneteam would pass on and not already recorded.
func WriteSession(t team.Team, agent, id string) error {
	if !profile.ValidSession(id) {
		return nil // not a session id: nothing to continue by
	}
	if cur, _ := ReadSession(t, agent); cur == id {
		return nil
	}
	// The run's folder exists (Prepare made it): none of its folders
	// below the team's may be a link.
	rel, err := filepath.Rel(t.Dir(), Home(t, agent))
	if err == nil {
		err = safefs.MkdirAll(t.Dir(), rel, 0o700)
	}
	if err != nil {
		return fmt.Errorf("record %s's session: %w", agent, err)
	}
	// Replaced by a rename: a link planted in its place is not written
	// through.
	if err := lockfile.WriteAtomic(SessionFile(t, agent), []byte(id+"\n")); err != nil {
		return fmt.Errorf("record %s's session: %w", agent, err)
	}
	return nil
}

// ReadSession is the session the hook last recorded, "" when none (or
// what is there is not a session id).
func ReadSession(t team.Team, agent string) (string, error) {
	b, err := safefs.ReadFile(SessionFile(t, agent))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if !profile.ValidSession(id) {
		return "", nil
	}
	return id, nil
}

// clearSession forgets the session of an earlier run: a fresh start must
// not be continued as the one before it, should it end before its
// hook says which session it runs.
func clearSession(t team.Team, agent string) error {
	err := os.Remove(SessionFile(t, agent))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget %s's earlier session: %w", agent, err)
	}
	return nil
}

// Session is the agent CLI session the teammate of launch record rec
// continues when it starts again, or "" and why not: its profile
// continues none, or its hook never said which session it ran.
func Session(rec launches.Record, getenv func(string) string) (id, why string) {
	p, err := profile.Find(rec.CLI, getenv)
	if err != nil {
		return "", err.Error()
	}
	if len(p.Resume) == 0 {
		return "", fmt.Sprintf("%s's profile continues no session (it has no \"resume\")", p.Title)
	}
	t := team.Team{Root: rec.Root, Name: rec.Team}
	id, err = ReadSession(t, rec.Agent)
	switch {
	case err != nil:
		return "", fmt.Sprintf("its session could not be read: %v", err)
	case id == "":
		return "", fmt.Sprintf("%s never ended a turn that named its session", p.Title)
	}
	return id, ""
}
