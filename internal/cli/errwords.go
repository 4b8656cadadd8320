package cli

import (
	"fmt"
	"strings"

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

// The library and the core word their errors for whoever calls them: they
// name no flag and no command of paneteam's. The command line does: each
// typed error below, found anywhere in an error's chain, has its own text
// replaced inside the whole message by the command line's, so what is
// wrapped around it stays as it was and the person reads which flag to pass.

// A wording recognises one link of an error's chain and returns the
// library's text of it and the command line's.
type wording func(err error) (lib, cli string, ok bool)

// wordings are built when an error is worded, not at package init: as a
// variable they were 28 allocations at every paneteam start.
func wordings() []wording {
	return []wording{
		sentinel(team.ErrNoOwner, "claim needs an owner: pass --owner NAME (a team member)"),
		sentinel(mailbox.ErrNoSender, "message has no sender: give --from or set PANETEAM_AGENT"),
		sentinel(team.ErrTaskNotFound, team.ErrTaskNotFound.Error()+" (see 'paneteam task list')"),
		typed(func(e *team.RootError) string {
			return fmt.Sprintf("find the team root: %v (set --root or PANETEAM_ROOT)", e.Err)
		}),
		typed(teamNotFound),
		typed(func(e *team.CompletedError) string {
			return fmt.Sprintf("task %s is completed; to reopen it run 'paneteam task update %s --status pending'", e.ID, e.ID)
		}),
		typed(func(e *team.TaskIDError) string {
			if e.ID == "" {
				return "task id is empty: give the number printed by 'paneteam task create' (see 'paneteam task list')"
			}
			return fmt.Sprintf("task id %q is not a number: task ids are digits only, like 3 (see 'paneteam task list')", e.ID)
		}),
		typed(claimRefused),
		typed(senderRefused),
		typed(func(e *approval.DecisionError) string { return e.Words("--" + string(e.Field)) }),
		typed(func(e *approval.AmbiguousError) string { return e.Words("--from NAME") }),
		typed(func(e *approval.UnknownError) string {
			return fmt.Sprintf("%s: 'paneteam requests --team %s' lists them", e.Error(), e.Team)
		}),
		typed(func(e *approval.NoKeyError) string {
			return fmt.Sprintf("%s: %v: start it again with paneteam spawn-pane, or answer %s where its key is (PANETEAM_STATE_DIR)",
				e.Member, approval.ErrNoKey, e.ID)
		}),
		sentinel(lifecycle.ErrLeadStays, "the team lead cannot be asked to shut down: delete the team with 'paneteam cleanup' once its members are gone"),
		typed(func(e *lifecycle.ActiveError) string {
			return fmt.Sprintf("team %s still has active members: %s; ask them to shut down first with "+
				"'paneteam shutdown --team %s --all' (or close their panes anyway with --force)",
				e.Team, strings.Join(e.Names, ", "), e.Team)
		}),
		typed(func(e *lifecycle.ClaudeTeamError) string {
			return fmt.Sprintf("team %s is the session team of a Claude Code process that may be alive (%s): "+
				"Claude Code deletes it itself when it exits; close its teammates with 'paneteam shutdown' instead", e.Team, e.Why)
		}),
		typed(func(e *lifecycle.BusyError) string {
			return fmt.Sprintf("another paneteam cleanup has held %s for %s: let it finish, then run this again", e.Path, e.Held)
		}),
		typed(func(e *resume.ClaudeTeamError) string {
			return fmt.Sprintf("team %s is the session team of a Claude Code lead (%s): paneteam resumes only teams it leads; "+
				"bring Claude's back with 'paneteam claude -- --resume'", e.Team, e.Why)
		}),
		typed(func(e *resume.BusyError) string {
			return fmt.Sprintf("another paneteam resume has held %s for %s: let it finish, then run this again", e.Path, e.Held)
		}),
		sentinel(worktree.ErrNoGit, "git is not installed (paneteam needs it for --worktree)"),
		typed(func(e *worktree.NotRepoError) string { return e.Words("--worktree") }),
		typed(func(e *spawn.WorktreeError) string { return "--worktree: " + e.Err.Error() }),
		typed(func(e *spawn.NotRemoteError) string {
			return fmt.Sprintf("%s does not run on another host (spawn-pane --host started none from this machine): nothing to reconnect", e.Member)
		}),
		typed(func(e *teamwatch.NoTeammatesError) string {
			return fmt.Sprintf("team %s has no teammates to wait for: spawn one with paneteam spawn-pane", e.Team)
		}),
		typed(func(e *claudestart.UsageError) string {
			if e.Option == claudestart.OptArgs {
				return "paneteam claude sets Claude's " + claudestart.ReservedFlag + " itself (tmux, through paneteam): leave it out of Claude's arguments"
			}
			return e.Words("--" + strings.ToLower(e.Option))
		}),
		typed(func(e *claudestart.BackendError) string { return "--backend " + e.Name + ": " + e.Err.Error() }),
		sentinel(claudestart.ErrNoTmuxPane, "$TMUX is set but $TMUX_PANE is not: start paneteam claude from a shell inside a tmux pane"),
		typed(func(e *teamfind.AmbiguousError) string {
			if len(e.Teams) == 0 {
				return "no team given, and no team under " + e.Root + ": pass --team NAME, or create one with 'paneteam team-create NAME'"
			}
			return fmt.Sprintf("no team given, and this is not inside a Claude Code session: pass --team NAME or set PANETEAM_TEAM (teams under %s: %s)",
				e.Root, strings.Join(e.Teams, ", "))
		}),
	}
}

// cliWords is err's text as the command line words it. The chain is
// walked from the outside in: an outer error's words quote its inner
// error's library text, which the inner one's wording then replaces.
func cliWords(err error) string {
	msg := err.Error()
	ws := wordings()
	walk(err, func(e error) {
		for _, w := range ws {
			if lib, cli, ok := w(e); ok && lib != cli {
				msg = strings.Replace(msg, lib, cli, 1)
			}
		}
	})
	return msg
}

// walk calls f on err and every error it wraps, outer ones first.
func walk(err error, f func(error)) {
	for err != nil {
		f(err)
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e, f)
			}
			return
		default:
			return
		}
	}
}

// sentinel words a sentinel error by its text.
func sentinel(target error, cli string) wording {
	return func(err error) (string, string, bool) {
		return target.Error(), cli, err == target //nolint:errorlint // one link of the chain, walked by cliWords
	}
}

// typed words an error of type E.
func typed[E error](word func(E) string) wording {
	return func(err error) (string, string, bool) {
		e, ok := err.(E) //nolint:errorlint // one link of the chain, walked by cliWords
		if !ok {
			return "", "", false
		}
		return e.Error(), word(e), true
	}
}

func teamNotFound(e *team.NotFoundError) string {
	hint := "create it with: paneteam team-create " + team.SanitizeTeam(e.Name)
	if len(e.Teams) > 0 {
		hint = "teams under " + e.Root + ": " + strings.Join(e.Teams, ", ")
	}
	return fmt.Sprintf("team %q: %v (%s)", e.Name, team.ErrNotFound, hint)
}

func claimRefused(e *team.ClaimError) string {
	switch e.Reason {
	case team.ClaimOwned:
		return fmt.Sprintf("task %s is already claimed by %s: pick another ('paneteam task list --available'), "+
			"or have %s release it", e.ID, e.Owner, e.Owner)
	case team.ClaimBlocked:
		return fmt.Sprintf("task %s is blocked by unfinished task(s) %s: finish those first, "+
			"or pick another ('paneteam task list --available')", e.ID, strings.Join(e.Blockers, ", "))
	}
	return e.Error()
}

// senderRefused names the variable or flag the refused name came from.
func senderRefused(e *team.SenderError) string {
	how := "PANETEAM_USER"
	if e.Default {
		how = "the default sender name"
	}
	switch e.Reason {
	case team.SenderAgentIsLead:
		return fmt.Sprintf("PANETEAM_AGENT=%q is a name only Claude Code's lead may write as in team %s: "+
			"unset it, or pass --from with your own name", e.Name, e.Team)
	case team.SenderReserved:
		return fmt.Sprintf("%s %q is reserved by Claude Code (team-lead, user, system, main): "+
			"set PANETEAM_USER to your own name, e.g. PANETEAM_USER=alex", how, e.Name)
	case team.SenderBadName:
		return fmt.Sprintf("%s %q: %v", how, e.Name, e.Err)
	}
	return fmt.Sprintf("%s %q is the name of a member of team %s, so messages would look like theirs: "+
		"set PANETEAM_USER to a name of your own, or pass --from", how, e.Name, e.Team)
}
