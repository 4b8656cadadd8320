package cli

// What review and land share: the lead's working tree, the teammate's
// record, telling the teammate.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// leadAndRecords is the working tree the command runs in and paneteam's
// worktree records.
func leadAndRecords(ctx context.Context, env Env) (land.Lead, worktree.Records, error) {
	state, err := env.stateDir()
	if err != nil {
		return land.Lead{}, worktree.Records{}, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return land.Lead{}, worktree.Records{}, err
	}
	lead, err := land.FindLead(ctx, cwd)
	if err != nil {
		return land.Lead{}, worktree.Records{}, fmt.Errorf("%w: run paneteam review and land from the working tree of the branch the work should reach", err)
	}
	return lead, worktree.OpenRecords(state), nil
}

func findTeammate(recs worktree.Records, teamName, name string) (worktree.Record, error) {
	r, err := land.FindRecord(recs, teamName, name)
	var amb *land.AmbiguousError
	switch {
	case errors.Is(err, land.ErrNoRecord):
		return r, usagef("paneteam gave no teammate called %s a worktree it still knows of ('paneteam review' lists those with work)", name)
	case errors.As(err, &amb):
		return r, usagef("teammates of teams %s are called %s: pass --team", strings.Join(amb.Teams, ", "), name)
	}
	return r, err
}

func shortID(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// tellTeammate sends r's teammate text by send's rules (land.Tell).
// root is --root as given; "" is the root the teammate's record names.
func tellTeammate(ctx context.Context, env Env, root string, r worktree.Record, text, summary string) error {
	t, cfg, err := teammateTeam(ctx, env, root, r)
	if err != nil {
		return err
	}
	return tellWords(land.Tell(ctx, callerOf(env), t, cfg, lockfile.Options{}, r, text, summary))
}

// teammateTeam opens r's team, from root ("" is the root its record
// names).
func teammateTeam(ctx context.Context, env Env, root string, r worktree.Record) (team.Team, *team.Config, error) {
	scope := teamScope{Team: r.Team, Root: root}
	if root == "" {
		scope.Root = r.Root
	}
	t, cfg, err := scope.open(ctx, env)
	if err != nil {
		return t, cfg, fmt.Errorf("%s's team %s: %w", r.Member, r.Team, err)
	}
	return t, cfg, nil
}

// tellWords words a refused land.Tell for the command line.
func tellWords(err error) error {
	var left *land.LeftError
	if errors.As(err, &left) {
		return exitError{code: ExitFailure, err: fmt.Errorf("%w (its work is still here: paneteam review %s)", err, left.Member)}
	}
	return postError(err)
}

// landedText is what 'paneteam land' prints for a land made, undo
// included: the dashboard's review view shows the same.
func landedText(lead land.Lead, r worktree.Record, res *land.Result) string {
	var b strings.Builder
	printLanded(Env{Stdout: &b}, lead, r, res, false)
	return b.String()
}

// landRefusal is a refused land worded as 'paneteam land' words it,
// with the command to run next.
func landRefusal(err error, lead land.Lead, r worktree.Record) error {
	return landRefused(err, lead, r, "paneteam land "+landTarget(r))
}

func countOrUnknown(n int) string {
	if n < 0 {
		return "?"
	}
	return strconv.Itoa(n)
}
