package router

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/spawn"
)

// Comeback is how a Claude teammate a resumed lead starts again goes on:
// with its earlier conversation (Session, for --resume) or fresh, and
// why not when a record was there.
type Comeback struct {
	Session string // the session to resume; "": start fresh
	Why     string // why an earlier launch is not resumed ("" when none was found)
}

// Resume decides whether the teammate Claude's resumed lead is starting
// (its flags args, in folder cwd) is one of that lead's earlier teammates
// coming back: rec is the newest launch of its name by the same lead
// session (launches.Store.OfLead), configDir Claude's config folder.
// Claude Code gives a resumed lead none of its pane teammates
// back (docs/ROUTER.md, "A resumed Claude lead"); its model starts one
// again by name, and this makes that start a --resume of the earlier
// session: same folder (Claude keeps transcripts by folder), a
// transcript on disk, the earlier process gone (two processes on one
// session would fork it). Only a launch from before leadSince (when the
// lead process claimed its team; zero when unknown) is an earlier
// lead's: a teammate this lead process stopped and starts again under
// the same name is a new one. Flags of Claude's own that name a session
// win.
func Resume(args []string, rec *launches.Record, cwd, configDir string, leadSince time.Time, alive func(pid int) bool) Comeback {
	f := spawn.ReadSessionFlags(args, func(name string) bool { return slices.Contains(valueFlags, name) })
	if rec == nil || rec.CLI != "claude" || rec.SessionID == "" || f.ID != "" || f.Resuming {
		return Comeback{}
	}
	if started, err := time.Parse(time.RFC3339Nano, rec.Started); err == nil && !leadSince.IsZero() && !started.Before(leadSince) {
		return Comeback{}
	}
	switch {
	case rec.Cwd != cwd:
		return Comeback{Why: fmt.Sprintf("its earlier session %s ran in %s, not %s", rec.SessionID, rec.Cwd, cwd)}
	case !hasTranscript(configDir, rec.SessionID):
		return Comeback{Why: fmt.Sprintf("its earlier session %s has no transcript under %s", rec.SessionID, filepath.Join(configDir, "projects"))}
	case rec.PID > 0 && alive(rec.PID):
		return Comeback{Why: fmt.Sprintf("its earlier session %s still runs (pid %d)", rec.SessionID, rec.PID)}
	}
	return Comeback{Session: rec.SessionID}
}

// hasTranscript reports whether Claude keeps session id's transcript
// under configDir (projects/<folder>/<id>.jsonl).
func hasTranscript(configDir, id string) bool {
	m, _ := filepath.Glob(filepath.Join(configDir, "projects", "*", id+".jsonl"))
	for _, p := range m {
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// ResumeNote is what 'paneteam claude --resume SESSION' tells the person
// about the teammates that session's lead had (recs, launches.ByLead):
// Claude does not bring them back, and how to. "" when it had none.
func ResumeNote(session string, recs []launches.Record) string {
	var names, fresh []string
	for _, r := range recs {
		names = append(names, r.Agent)
		if r.CLI != "claude" || r.SessionID == "" {
			fresh = append(fresh, r.Agent)
		}
	}
	if len(names) == 0 {
		return ""
	}
	note := fmt.Sprintf("session %s had teammates (%s) that Claude Code does not bring back: ask its lead to start each again "+
		"under the same name, and a Claude teammate goes on with its own conversation in a pane", session, strings.Join(names, ", "))
	if len(fresh) > 0 {
		note += fmt.Sprintf("; %s start fresh", strings.Join(fresh, ", "))
	}
	return note
}
