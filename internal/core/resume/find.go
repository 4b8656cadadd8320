package resume

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/team"
)

// DefaultWithin is how recently a team must have been active for
// 'resume --all' to bring it back, and how long 'cleanup --orphans'
// keeps a team that can come back: a day covers a reboot or a closed
// laptop overnight, not a team left for a week, whose teammates would
// each spend tokens again for work long forgotten.
const DefaultWithin = 24 * time.Hour

// Resumable is a team that can come back: paneteam led it, its lead
// process is gone, none of its members' panes runs, and at least one
// member has a launch record to start again from.
type Resumable struct {
	Team string `json:"team"`
	// Members are those with a launch record.
	Members []string `json:"members"`
	// LastActive is the newest change to its config or inboxes.
	LastActive time.Time `json:"lastActive"`
	Why        string    `json:"why"`
}

// Check says whether the team of cfg can come back (see Resumable),
// and why not. Records are store's (nil: none read).
func Check(ctx context.Context, t team.Team, cfg *team.Config, store *launches.Store, env backend.Env) (*Resumable, bool) {
	lead := team.LeadOf(cfg)
	if store == nil {
		return nil, false
	}
	census := backend.NewCensus(env)
	// Judged as Team judges them: from the launch record first (its
	// process, its pane on its server), not from the row alone, which
	// others write. So the records are read (once, when the rule first
	// asks) before the panes are.
	var have map[string]*launches.Record
	record := func(name string) *launches.Record {
		if have == nil {
			have = map[string]*launches.Record{}
			recs, _ := store.List(t.Root, t.Name)
			for i := range recs {
				have[recs[i].Agent] = &recs[i]
			}
		}
		return have[name]
	}
	gone := func(m *team.Member) bool {
		v := judge(ctx, census, cfg, *m, record(m.Name), ProcessGrace)
		return v.err == nil && !v.running
	}
	recorded := func(name string) bool { return record(name) != nil }
	members := Returning(cfg, lead, gone, recorded)
	if len(members) == 0 {
		return nil, false
	}
	return &Resumable{Team: t.Name, Members: members, LastActive: LastActive(t), Why: lead.Why + " and no teammate's pane runs"}, true
}

// Find lists the teams under root that can come back and were active
// within the last within (0: DefaultWithin), newest first.
func Find(ctx context.Context, root string, store launches.Store, env backend.Env, within time.Duration, now time.Time) ([]Resumable, error) {
	if within <= 0 {
		within = DefaultWithin
	}
	names, err := team.List(root)
	if err != nil {
		return nil, err
	}
	var out []Resumable
	for _, name := range names {
		t, cfg, err := team.Open(root, name)
		if err != nil || t.Dir() != filepath.Join(root, "teams", name) {
			continue
		}
		r, ok := Check(ctx, t, cfg, &store, env)
		if !ok || now.Sub(r.LastActive) > within {
			continue
		}
		out = append(out, *r)
	}
	slices.SortStableFunc(out, func(a, b Resumable) int { return b.LastActive.Compare(a.LastActive) })
	return out, nil
}

// LastActive is the newest change to the team's config or inboxes.
func LastActive(t team.Team) time.Time {
	var last time.Time
	note := func(p string) {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(last) {
			last = fi.ModTime()
		}
	}
	note(t.ConfigPath())
	entries, _ := os.ReadDir(t.InboxDir())
	for _, e := range entries {
		note(filepath.Join(t.InboxDir(), e.Name()))
	}
	return last
}
