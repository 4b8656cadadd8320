// Package teamtest builds the teams tests work on: real team folders on a
// temporary root, with members recorded as paneteam records them (unique
// names, agent ids, colours), through package team itself.
//
//	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice", "bob")...)
//
// It is a package of its own, not part of testutil, because package team's
// own tests use testutil.
package teamtest

import (
	"context"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// New creates team name on a fresh temporary root (testutil.Root) with
// members, and returns it.
func New(t testing.TB, name string, opts team.CreateOptions, members ...team.Member) team.Team {
	t.Helper()
	return OnRoot(t, testutil.Root(t), name, opts, members...)
}

// OnRoot is New on root, for tests that hold several teams or look at the
// root themselves. A name already taken there gets -2, -3, ... as with
// `paneteam team-create`.
func OnRoot(t testing.TB, root, name string, opts team.CreateOptions, members ...team.Member) team.Team {
	t.Helper()
	tm, _, err := team.Create(root, name, opts)
	if err != nil {
		t.Fatalf("create team %q: %v", name, err)
	}
	if len(members) > 0 {
		Add(t, tm, members...)
	}
	return tm
}

// Add records members in tm's config.json, under its lock, as spawn does
// before it starts anything: each gets a unique name, its agent id and a
// colour unless it has one. It returns the config as written.
func Add(t testing.TB, tm team.Team, members ...team.Member) *team.Config {
	t.Helper()
	cfg, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		for _, m := range members {
			if _, err := c.AddMember(m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("add members to team %s: %v", tm.Name, err)
	}
	return cfg
}

// Named is members with these names and nothing else: as if added by
// hand, with no pane and no process.
func Named(names ...string) []team.Member {
	return Like(team.Member{}, names...)
}

// Like is members with these names, each otherwise a copy of like (a
// backend, a pane id, a working folder).
func Like(like team.Member, names ...string) []team.Member {
	out := make([]team.Member, len(names))
	for i, n := range names {
		out[i] = like
		out[i].Name = n
	}
	return out
}

// Load reads tm's config.json.
func Load(t testing.TB, tm team.Team) *team.Config {
	t.Helper()
	cfg, err := team.Load(tm.ConfigPath())
	if err != nil {
		t.Fatalf("load team %s: %v", tm.Name, err)
	}
	return cfg
}

// Member is tm's member name as config.json records it.
func Member(t testing.TB, tm team.Team, name string) team.Member {
	t.Helper()
	m := Load(t, tm).Member(name)
	if m == nil {
		t.Fatalf("team %s has no member %q", tm.Name, name)
	}
	return *m
}
