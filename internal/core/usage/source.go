package usage

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/team"
)

// Source is where one member's usage is written: the files of one
// format, named outright or found by patterns below a folder of its run.
// Unknown, when set, says why its usage cannot be read.
type Source struct {
	Format Format
	// Base is the folder the patterns are below; no folder between it
	// and a match may be a link (a teammate writes its run's folder).
	Base     string
	Patterns []string // relative to Base
	// Files are read as they are named, when they exist.
	Files   []string
	Unknown string
}

// cliPatterns are where, in the agent CLIs' run folders
// (internal/agents/profile/profiles), each keeps what it records, below
// the run's folder. (A switch, not a map, so that no paneteam start
// builds it.)
func cliPatterns(cli string) (format Format, patterns []string, ok bool) {
	switch cli {
	case "codex":
		return Codex, []string{"codex/sessions/*/*/*/rollout-*.jsonl"}, true
	case "gemini":
		return Gemini, []string{"gemini/.gemini/tmp/*/chats/*.jsonl"}, true
	case "opencode":
		return OpenCode, []string{OpenCodeFile}, true
	}
	return "", nil, false
}

// OpenCodeFile is the file, in an OpenCode teammate's run folder, where
// paneteam's plugin writes each finished reply's usage (OpenCode keeps
// its own in the person's data folder, which paneteam does not read).
const OpenCodeFile = "usage.jsonl"

// ForLaunch is where the teammate of launch record rec writes its usage.
// runDir is its run's folder in the team's (panedialog.RunDir), for an agent
// CLI whose record names no config folder.
func ForLaunch(rec launches.Record, runDir string) Source {
	if rec.Host != "" {
		return Source{Unknown: "runs on " + rec.Host + ": paneteam reads no usage from another host"}
	}
	switch rec.CLI {
	case "":
		return Source{Unknown: "a command of your own: paneteam cannot see what it spends"}
	case "claude":
		if rec.SessionID == "" {
			return Source{Unknown: "started without a session id paneteam knows: its transcript is not found"}
		}
		dir := rec.ConfigDir
		if dir == "" {
			dir = rec.Root // spawn gives a Claude teammate the team's root as its CLAUDE_CONFIG_DIR
		}
		return ClaudeSession(dir, rec.Cwd, rec.SessionID)
	}
	format, patterns, ok := cliPatterns(rec.CLI)
	if !ok {
		return Source{Unknown: "runs " + rec.CLI + ", whose usage paneteam does not know how to read"}
	}
	base := rec.ConfigDir
	if base == "" {
		base = runDir
	}
	return Source{Format: format, Base: base, Patterns: patterns}
}

// ClaudeSession is Claude Code's transcript of session under its config
// folder configDir, started in cwd: projects/<cwd, each character
// but a letter or digit as '->/<session>.jsonl, and the transcripts of
// the subagents it ran beside it. Claude Code shortens a long folder's
// name, so when that file is not there the session is looked for in
// every project folder (a session id names one transcript).
func ClaudeSession(configDir, cwd, session string) Source {
	projects := filepath.Join(configDir, "projects")
	proj := projectName(cwd)
	if _, err := os.Lstat(filepath.Join(projects, proj, session+".jsonl")); err != nil {
		proj = "*"
	}
	return Source{Format: Claude, Base: projects, Patterns: []string{
		filepath.Join(proj, session+".jsonl"),
		filepath.Join(proj, session, "subagents", "*.jsonl"),
	}}
}

// ForLead is where the team's lead writes its usage: Claude Code's lead's
// transcript, under the config folder the team's root is (its teams/
// folder is the lead's), by the lead session config.json names. ok is
// false for a lead that is not a model (paneteam's, the person's).
func ForLead(t team.Team, cfg *team.Config) (Source, bool) {
	if cfg == nil || cfg.LeadSessionID == "" {
		return Source{}, false
	}
	_, claudeLed := cfg.LeadProcess()
	if !claudeLed && cfg.Paneteam != nil && cfg.Paneteam.LeaderPID > 0 {
		return Source{}, false // paneteam's lead: the person, no model
	}
	cwd := ""
	if lead := cfg.Member(team.LeadName); lead != nil {
		cwd = lead.Cwd
	}
	return ClaudeSession(t.Root, cwd, cfg.LeadSessionID), true
}

// projectName is Claude Code's name for the project folder of cwd.
func projectName(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, cwd)
}

// files are the source's files that exist now; a match below a link is
// left out.
func (s Source) files() []string {
	var out []string
	for _, f := range s.Files {
		if _, err := os.Lstat(f); err == nil {
			out = append(out, f)
		}
	}
	for _, p := range s.Patterns {
		matches, _ := filepath.Glob(filepath.Join(s.Base, p))
		for _, m := range matches {
			rel, err := filepath.Rel(s.Base, filepath.Dir(m))
			if err != nil || safefs.Below(s.Base, rel) != nil {
				continue
			}
			out = append(out, m)
		}
	}
	return out
}

// Dirs are the folders where the source's records are or may appear:
// every existing folder its patterns pass through below Base (a new
// session's folder appears in one of them), and its files' folders. all
// is false when Base or a file's folder is missing: where the records
// will appear cannot be watched yet.
func (s Source) Dirs() (dirs []string, all bool) {
	all = true
	for _, f := range s.Files {
		d := filepath.Dir(f)
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			all = false
			continue
		}
		dirs = append(dirs, d)
	}
	if len(s.Patterns) == 0 {
		return dirs, all
	}
	if st, err := os.Stat(s.Base); err != nil || !st.IsDir() {
		return dirs, false
	}
	for _, p := range s.Patterns {
		parts := strings.Split(filepath.Dir(p), string(filepath.Separator))
		for i := 0; i <= len(parts); i++ {
			matches, _ := filepath.Glob(filepath.Join(append([]string{s.Base}, parts[:i]...)...))
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && st.IsDir() {
					dirs = append(dirs, m)
				}
			}
		}
	}
	return dirs, all
}
