package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/claudestart"
	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// The library's typed errors reach the person in the command line's own
// words, wherever they sit in the chain, and what wraps them stays.
func TestErrorTextWordsTheLibrarysErrorsByFlags(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("task 4: %w", &team.ClaimError{ID: "4", Reason: team.ClaimOwned, Owner: "bob"}),
			"task 4: task 4 is already claimed by bob: pick another ('paneteam task list --available'), or have bob release it"},
		{fmt.Errorf("claim: %w", team.ErrNoOwner), "claim: claim needs an owner: pass --owner NAME (a team member)"},
		{fmt.Errorf("send: %w", mailbox.ErrNoSender), "send: message has no sender: give --from or set PANETEAM_AGENT"},
		{fmt.Errorf("task 9: %w", team.ErrTaskNotFound), "task 9: no such task (see 'paneteam task list')"},
		{&team.TaskIDError{ID: "x"}, `task id "x" is not a number: task ids are digits only, like 3 (see 'paneteam task list')`},
		{&team.RootError{Err: errors.New("no home")}, "find the team root: no home (set --root or PANETEAM_ROOT)"},
		{&team.NotFoundError{Name: "a b", Root: "/r"}, `team "a b": no such team (create it with: paneteam team-create a-b)`},
		{&team.SenderError{Reason: team.SenderIsMember, Name: "bob", Team: "t"},
			`PANETEAM_USER "bob" is the name of a member of team t, so messages would look like theirs: set PANETEAM_USER to a name of your own, or pass --from`},
		{&claudestart.UsageError{Option: claudestart.OptLayout, Value: "spiral", Msg: "no such layout"}, "--layout: no such layout"},
		{&claudestart.UsageError{Option: claudestart.OptBackend, Value: "konsole", Msg: "use auto"}, "--backend konsole: use auto"},
		{&claudestart.UsageError{Option: claudestart.OptArgs, Value: "--teammate-mode"},
			"paneteam claude sets Claude's --teammate-mode itself (tmux, through paneteam): leave it out of Claude's arguments"},
		{fmt.Errorf("plan: %w", claudestart.ErrNoTmuxPane), "plan: $TMUX is set but $TMUX_PANE is not: start paneteam claude from a shell inside a tmux pane"},
		{&lifecycle.ActiveError{Team: "crew", Names: []string{"a", "b"}},
			"team crew still has active members: a, b; ask them to shut down first with 'paneteam shutdown --team crew --all' (or close their panes anyway with --force)"},
		{lifecycle.ErrLeadStays, "the team lead cannot be asked to shut down: delete the team with 'paneteam cleanup' once its members are gone"},
		{&resume.ClaudeTeamError{Team: "s", Why: "pid 9"},
			"team s is the session team of a Claude Code lead (pid 9): paneteam resumes only teams it leads; bring Claude's back with 'paneteam claude -- --resume'"},
		{&teamfind.AmbiguousError{Root: "/r", Teams: []string{"a"}},
			"no team given, and this is not inside a Claude Code session: pass --team NAME or set PANETEAM_TEAM (teams under /r: a)"},
		{&approval.UnknownError{ID: "p-1", Team: "crew"}, `no such request: no request "p-1" is waiting for the lead of team crew: 'paneteam requests --team crew' lists them`},
		{&teamwatch.NoTeammatesError{Team: "crew"}, "team crew has no teammates to wait for: spawn one with paneteam spawn-pane"},
	} {
		if got := errorText(tc.err); got != tc.want {
			t.Errorf("errorText(%v)\n got %s\nwant %s", tc.err, got, tc.want)
		}
	}
}

// An outer error that quotes an inner one is worded first, then the
// inner one inside it.
func TestErrorTextWordsNestedErrors(t *testing.T) {
	err := fmt.Errorf("spawn-pane: %w", &spawn.WorktreeError{Err: &worktree.NotRepoError{Dir: "/w", Tree: true, Err: worktree.ErrNoGit}})
	want := "spawn-pane: --worktree: /w is not in a git working tree (--worktree needs one): git is not installed (paneteam needs it for --worktree)"
	if got := errorText(err); got != want {
		t.Errorf("errorText\n got %s\nwant %s", got, want)
	}
}
