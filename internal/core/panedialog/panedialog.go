// Package panedialog is the mark an agent CLI teammate (Codex, Gemini CLI,
// OpenCode run by 'paneteam teammate --agent') leaves while it waits, in
// its own pane, for a person to approve a tool. Such a CLI never writes a
// permission request to the lead's inbox: its dialog is on its screen, and
// the person only learns of it by looking. The CLI's notification hook
// ('paneteam agent-hook NAME', internal/agents/turnend) sets the mark, its
// next report of anything else (a tool ran, the turn ended) clears it, and
// teamwatch reads it to show the member as needing you.
//
// The mark lives in the run's own folder, inside the team's folder, which
// teammates and other hosts can write: it is only ever a hint to look at a
// pane, read without following a link, and a mark that is not one costs
// nothing.
package panedialog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/internal/term/shorten"
	"github.com/paneteam/paneteam/team"
)

// Reason is what a person is told of a member whose CLI asks.
const Reason = "asks for approval in its pane"

// fileName is the mark's name in the run's folder.
const fileName = "asking"

// maxMark bounds what is read of a mark: a real one is under 1 KB.
const maxMark = 4 << 10

// aboutMax is how much of the CLI's own words the mark keeps.
const aboutMax = 200

// RunDir is an agent CLI teammate's own folder, below the team's, where
// its launch writes the CLI's config (internal/agents/agentrun) and its hook
// leaves its marks.
func RunDir(t team.Team, agent string) string {
	return filepath.Join(t.Dir(), "agents", team.SanitizePath(agent))
}

// Path is where agent's mark is.
func Path(t team.Team, agent string) string { return filepath.Join(RunDir(t, agent), fileName) }

// Mark is a CLI waiting for a person's approval in its pane.
type Mark struct {
	Since time.Time `json:"since"`
	// About is the CLI's own summary of what it asks, shortened; it is
	// the teammate's text, shown only as such.
	About string `json:"about,omitempty"`
}

// runRel is the run folder's path below the team's folder, for safefs.
func runRel(t team.Team, agent string) string {
	return filepath.Join("agents", team.SanitizePath(agent))
}

// Set marks agent as asking since now; about is the CLI's summary. The
// run's folder must exist (the launch made it); none of it may be a link.
func Set(t team.Team, agent, about string, now time.Time) error {
	if err := runFolder(t, agent); err != nil {
		return fmt.Errorf("mark %s as asking: %w", agent, err)
	}
	b, err := json.Marshal(Mark{Since: now.UTC(), About: shorten.FirstLine(about, aboutMax)})
	if err != nil {
		return err
	}
	f, err := safefs.OpenFile(Path(t, agent), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("mark %s as asking: %w", agent, err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("mark %s as asking: %w", agent, err)
	}
	return nil
}

// Clear removes agent's mark; no mark, or no run folder, is not an error.
// A link planted for the mark is removed itself, never followed.
func Clear(t team.Team, agent string) error {
	if err := runFolder(t, agent); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("clear %s's mark: %w", agent, err)
	}
	if err := os.Remove(Path(t, agent)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear %s's mark: %w", agent, err)
	}
	return nil
}

// runFolder checks the run's folders below the team's: none a link.
func runFolder(t team.Team, agent string) error {
	if err := safefs.Below(t.Dir(), runRel(t, agent)); err != nil {
		return err
	}
	return safefs.Dir(RunDir(t, agent))
}

// Read returns agent's mark; ok is false when there is none, or what is
// there is not a mark (a link, a folder, a pipe, a large or malformed
// file). The usual case, no mark, costs one failed open.
func Read(t team.Team, agent string) (m Mark, ok bool) {
	f, err := safefs.OpenFile(Path(t, agent), os.O_RDONLY, 0)
	if err != nil {
		return Mark{}, false
	}
	defer f.Close()
	// The open refused a link for the mark itself; a folder above it
	// could still be one, which the mark's name would have been reached
	// through.
	if safefs.Below(t.Dir(), runRel(t, agent)) != nil {
		return Mark{}, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxMark+1))
	if err != nil || len(b) > maxMark {
		return Mark{}, false
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Since.IsZero() {
		return Mark{}, false
	}
	return m, true
}
