// Package launches keeps the launch record of every teammate paneteam
// starts: the program and its arguments, the folder it really runs in,
// the Claude Code session id it was started with, the backend and pane.
// Worktrees, resume and cost read it back.
//
// The records live in paneteam's own state folder (a 0700 folder, 0600
// files), never in the team folder: teammates and other hosts write
// there, and a record names a program paneteam would run again. A
// record is read without following a link, and one that does not parse
// costs only itself.
package launches

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// How a teammate was started.
const (
	// ViaRouter: Claude Code's lead started it, through paneteam's
	// teammate router under 'paneteam claude'.
	ViaRouter = "router"
	// ViaSpawnPane: 'paneteam spawn-pane' (or the dashboard) started it.
	ViaSpawnPane = "spawn-pane"
)

// Record is one teammate's launch.
type Record struct {
	Root  string `json:"root"` // the team root (the Claude config folder)
	Team  string `json:"team"`
	Agent string `json:"agent"`
	// CLI is what the teammate runs: "claude", an agent profile's name
	// ("codex", "gemini", "opencode", a person's own), or "" for a
	// command of the person's.
	CLI string `json:"cli,omitempty"`
	Via string `json:"via"`
	// Program and Args are what runs in the pane (Args without the
	// program); for a teammate on another host, what runs there.
	Program string   `json:"program"`
	Args    []string `json:"args,omitempty"`
	// Cwd is the folder the teammate really runs in (on Host when set;
	// "" there is the remote user's home).
	Cwd string `json:"cwd"`
	// Env is what was added to the teammate's environment (KEY=VALUE):
	// paneteam's variables, Claude Code's config folder and API routing,
	// an agent CLI's own, and the PATH of the person who started it, so
	// that a resume from cron or a tmux hook runs it as it ran.
	Env []string `json:"env,omitempty"`
	// Host is the ssh host the teammate runs on; "": this machine.
	Host string `json:"host,omitempty"`
	// CLISession is the agent CLI's own session a resume continued
	// (its hook names it in the run's folder at each turn's end); "" for
	// a first run or a fresh one.
	CLISession string `json:"cliSession,omitempty"`
	// SessionID is the Claude Code session id the teammate was started
	// with (--session-id), for a Claude teammate.
	SessionID string `json:"sessionId,omitempty"`
	// ConfigDir is the folder the teammate's CLI keeps its own records
	// in, its usage among them: Claude Code's CLAUDE_CONFIG_DIR, an agent
	// CLI's run folder (its CODEX_HOME, GEMINI_CLI_HOME and OpenCode's
	// config folder are below it); "" when unknown.
	ConfigDir string `json:"configDir,omitempty"`
	// ParentSessionID is the lead's session, when Claude's lead started it.
	ParentSessionID string `json:"parentSessionId,omitempty"`
	Backend         string `json:"backend,omitempty"` // tmux, kitty, iterm2, in-process, ...
	Pane            string `json:"pane,omitempty"`    // the backend's id of its pane
	PID             int    `json:"pid,omitempty"`
	// PIDStart is when PID started (proc.StartTime): with it, PID names
	// that very process and not a later one given the same pid. Resume
	// believes this, not the member row in config.json (which others
	// write), when it asks whether the teammate still runs. "" in
	// records older releases wrote.
	PIDStart string `json:"pidStart,omitempty"`
	// TmuxSocket is the socket path of the tmux server paneteam made
	// the pane on (tmux only): the server resume looks for the pane on,
	// whatever the row says. "" for other backends and older records.
	TmuxSocket string `json:"tmuxSocket,omitempty"`
	Started    string `json:"started"` // RFC 3339, UTC
}

// Store is the folder of launch records.
type Store struct {
	Dir string
}

// Folder is the records' folder in paneteam's state folder.
func Folder(state string) string { return filepath.Join(state, "launches") }

// Open is the store in the state folder state.
func Open(state string) Store { return Store{Dir: Folder(state)} }

// path is the record of agent of team under root:
// "<team>.<agent>.<12 hex of root, team and agent>.json", readable by a
// person and unique per root.
func (s Store) path(root, teamName, agent string) string {
	abs, err := filepath.Abs(root)
	if err == nil {
		root = abs
	}
	sum := sha256.Sum256([]byte(root + "\x00" + teamName + "\x00" + agent))
	return filepath.Join(s.Dir, safe(teamName)+"."+safe(agent)+"."+hex.EncodeToString(sum[:6])+".json")
}

// safe is s as a file name's part: team.SanitizePath's spelling (as
// Claude Code names a member's files), cut to 64 bytes.
func safe(s string) string {
	out := team.SanitizePath(s)
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

// Write records r, replacing an earlier launch of the same teammate.
func (s Store) Write(r Record) error {
	if r.Team == "" || r.Agent == "" {
		return errors.New("a launch record needs its team and teammate")
	}
	if abs, err := filepath.Abs(r.Root); err == nil && r.Root != "" {
		r.Root = abs
	}
	if abs, err := filepath.Abs(r.ConfigDir); err == nil && r.ConfigDir != "" {
		r.ConfigDir = abs
	}
	if r.Started == "" {
		r.Started = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if err := os.MkdirAll(s.Dir, lockfile.DirPerm); err != nil {
		return fmt.Errorf("make the launch records' folder: %w", err)
	}
	if err := safefs.Dir(s.Dir); err != nil {
		return fmt.Errorf("launch records: %w", err)
	}
	os.Chmod(s.Dir, lockfile.DirPerm)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := lockfile.WriteAtomic(s.path(r.Root, r.Team, r.Agent), append(b, '\n')); err != nil {
		return fmt.Errorf("record %s's launch: %w", r.Agent, err)
	}
	return nil
}

// Read returns the record of agent of team under root, or nil when there
// is none.
func (s Store) Read(root, teamName, agent string) (*Record, error) {
	if err := s.trusted(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	r, err := readRecord(s.path(root, teamName, agent))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return r, err
}

func readRecord(path string) (*Record, error) {
	f, err := safefs.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// A record names a program paneteam runs again: one another user
	// wrote, or could have changed, is not believed.
	if err := ownPrivate(st, "0600"); err != nil {
		return nil, fmt.Errorf("launch record %s: %w", path, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("launch record %s: %w", path, err)
	}
	return &r, nil
}

// List returns the records of team under root, by teammate name; a
// record that cannot be read is skipped and named in the error list.
func (s Store) List(root, teamName string) ([]Record, []error) {
	if err := s.trusted(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{err}
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	files, err := filepath.Glob(filepath.Join(s.Dir, globEscape(safe(teamName))+".*.json"))
	if err != nil {
		return nil, []error{err}
	}
	var out []Record
	var errs []error
	for _, f := range files {
		r, err := readRecord(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r.Root == root && r.Team == teamName && s.path(root, teamName, r.Agent) == f {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out, errs
}

// Forget removes agent's record (gone already is fine).
func (s Store) Forget(root, teamName, agent string) error {
	err := os.Remove(s.path(root, teamName, agent))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget %s's launch: %w", agent, err)
	}
	return nil
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

// OfLead returns the newest record of agent among the teammates Claude
// Code's lead session parentSession started under root, whatever the
// team: a resumed lead may lead a team of another name than the one it
// started its teammates in. nil when there is none.
func (s Store) OfLead(root, parentSession, agent string) *Record {
	if agent == "" {
		return nil
	}
	for _, r := range s.ByLead(root, parentSession) {
		if r.Agent == agent {
			return &r
		}
	}
	return nil
}

// ByLead returns the records of the teammates Claude Code's lead session
// parentSession started under root, in any team, one per name (the
// newest), by name. Records that cannot be read are skipped.
func (s Store) ByLead(root, parentSession string) []Record {
	if parentSession == "" {
		return nil
	}
	// The folder is checked as List checks it: records in a folder
	// another user could write are not believed.
	if s.trusted() != nil {
		return nil
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	files, _ := filepath.Glob(filepath.Join(s.Dir, "*.json"))
	newest := map[string]Record{}
	for _, f := range files {
		r, err := readRecord(f)
		if err != nil || r.Root != root || r.ParentSessionID != parentSession || s.path(root, r.Team, r.Agent) != f {
			continue
		}
		if cur, ok := newest[r.Agent]; !ok || r.Started > cur.Started {
			newest[r.Agent] = *r
		}
	}
	out := make([]Record, 0, len(newest))
	for _, r := range newest {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out
}
