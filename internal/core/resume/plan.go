package resume

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/mailbox"
)

// plan is what a member runs when it starts again.
type plan struct {
	argv, env []string
	how       string
	note      string // for the person
	tell      string // for the member, in its inbox before it starts
	session   string // the Claude Code or agent CLI session it runs, "" when unknown
	earlier   string // its earlier conversation's transcript, "" when unknown
}

// planFor reads what to run from the member's launch record; session
// finds an agent CLI's own session (Options.AgentSession).
func planFor(rec launches.Record, session AgentSession) plan {
	switch rec.CLI {
	case "":
		return plan{argv: append([]string{rec.Program}, rec.Args...), env: envOf(rec), how: Restarted}
	case "claude":
		return claudePlan(rec)
	}
	return agentPlan(rec, session)
}

// claudePlan continues a Claude Code teammate's own conversation: the
// command it was started with, --resume in place of --session-id, from
// the same folder (Claude Code finds a session under the project folder
// of the folder it runs in). Without the session's transcript it starts
// fresh, told so.
func claudePlan(rec launches.Record) plan {
	earlier := transcript(rec)
	if _, ok := withSession(rec.Args, "--resume", rec.SessionID); !ok {
		// The person's own arguments chose its session (--resume,
		// --continue): started again as they ran, they choose it again.
		return plan{argv: append([]string{rec.Program}, rec.Args...), env: envOf(rec), how: Restarted, session: rec.SessionID,
			earlier: earlier, note: "its command line chooses its own session: started again as it ran"}
	}
	switch {
	case rec.SessionID == "":
		return freshClaude(rec, "it was started without a session id paneteam knows", "")
	case earlier == "":
		return freshClaude(rec, fmt.Sprintf("no transcript of its session %s was found", rec.SessionID), "")
	}
	args, _ := withSession(rec.Args, "--resume", rec.SessionID)
	return plan{argv: append([]string{rec.Program}, args...), env: envOf(rec), how: Continued,
		session: rec.SessionID, earlier: earlier}
}

// freshClaude starts a Claude Code teammate in a new session (its old id
// is taken: Claude Code refuses a session id whose transcript exists),
// and tells it where its earlier conversation is.
func freshClaude(rec launches.Record, why, earlier string) plan {
	sid := mailbox.NewMsgID()
	args, ok := withSession(rec.Args, "--session-id", sid)
	if !ok {
		sid = ""
	}
	tell := "Your team stopped (its panes went away) and paneteam started you again, but your earlier conversation " +
		"could not be continued (" + why + "). "
	if earlier != "" {
		tell += "It is kept in " + earlier + ": read it to pick up where you left off. "
	}
	tell += "Look at the task list for the tasks you own and what is left of them."
	return plan{argv: append([]string{rec.Program}, args...), env: envOf(rec), how: Fresh, session: sid,
		note: "its conversation was not continued: " + why + "; started fresh, and told so", tell: tell, earlier: earlier}
}

// withSession is args with its --session-id (paneteam's, given at spawn)
// replaced by flag and id, in its place; false when args has none.
func withSession(args []string, flag, id string) ([]string, bool) {
	out := make([]string, 0, len(args)+1)
	found := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			out = append(out, args[i:]...)
			return out, found
		case a == "--session-id" && i+1 < len(args) && !found:
			out = append(out, flag, id)
			found = true
			i++
		case strings.HasPrefix(a, "--session-id=") && !found:
			out = append(out, flag, id)
			found = true
		default:
			out = append(out, a)
		}
	}
	return out, found
}

// sessionID is the shape of an id paneteam gives (a UUID); anything else
// is not looked for on disk.
// It is checked by hand: a regular expression compiled at package
// initialisation costs every paneteam process, and resume is rare.
func sessionIDShape(s string) bool {
	if len(s) < 8 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// transcript is the file Claude Code keeps the session's conversation
// in, "" when there is none: <config dir>/projects/<the folder's
// project>/<session>.jsonl, the project folder found by the file rather
// than by re-spelling Claude Code's name for it.
func transcript(rec launches.Record) string {
	if !sessionIDShape(rec.SessionID) {
		return ""
	}
	dir := configDir(rec)
	if dir == "" {
		return ""
	}
	want := filepath.Join(dir, "projects", projectName(rec.Cwd), rec.SessionID+".jsonl")
	if st, err := os.Lstat(want); err == nil && st.Mode().IsRegular() {
		return want
	}
	found, _ := filepath.Glob(filepath.Join(dir, "projects", "*", rec.SessionID+".jsonl"))
	for _, f := range found {
		if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() {
			return f
		}
	}
	return ""
}

// configDir is the Claude Code config folder the teammate ran with: its
// CLAUDE_CONFIG_DIR, else the team root (which is one).
func configDir(rec launches.Record) string {
	for _, kv := range rec.Env {
		if v, ok := strings.CutPrefix(kv, "CLAUDE_CONFIG_DIR="); ok && v != "" {
			return v
		}
	}
	return rec.Root
}

// projectName is Claude Code's name for a folder's project folder: every
// character but a letter or digit made '-'.
func projectName(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, cwd)
}

// envOf is what the teammate's environment gets: as recorded, or, for a
// record written before paneteam kept it, paneteam's variables (and a
// Claude Code teammate's config folder and team switches).
func envOf(rec launches.Record) []string {
	if len(rec.Env) > 0 {
		return append([]string(nil), rec.Env...)
	}
	env := []string{"PANETEAM_TEAM=" + rec.Team, "PANETEAM_AGENT=" + rec.Agent, "PANETEAM_ROOT=" + rec.Root}
	if rec.CLI == "claude" {
		env = append(env, "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "CLAUDE_CONFIG_DIR="+rec.Root)
	}
	return env
}

// lastLine is the last non-empty line of a pane's output.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return "it exited at once"
}

// firstLine is the first non-empty line of a pane's output.
func firstLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "it exited at once"
}
