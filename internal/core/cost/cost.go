// Package cost is what each member of a team has cost: its tokens
// (package usage, read incrementally from what its CLI records) priced
// by the table of package prices. Unknown stays unknown: a teammate on
// another host, a program with no token source, a model with no price
// has nil counts or a nil cost, never a zero.
package cost

import (
	"errors"
	"os"
	"sort"
	"strconv"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/panedialog"
	"github.com/paneteam/paneteam/internal/core/prices"
	"github.com/paneteam/paneteam/internal/core/usage"
	"github.com/paneteam/paneteam/team"
)

// Cost is one member's (or a team's) spending as status shows it: named
// fields, nil for unknown.
type Cost struct {
	InputTokens      *int64 `json:"inputTokens"`
	OutputTokens     *int64 `json:"outputTokens"`
	CacheReadTokens  *int64 `json:"cacheReadTokens"`
	CacheWriteTokens *int64 `json:"cacheWriteTokens"`
	// CostUSD is the estimate at the price table's prices; nil when a
	// model spent on has no price (Unpriced) or the tokens are unknown.
	CostUSD *float64 `json:"costUSD"`
	// Models are the models spent on, as the CLI named them.
	Models   []string `json:"models"`
	Unpriced []string `json:"unpriced,omitempty"`
	// Unknown says why the tokens are unknown ("" when known).
	Unknown string `json:"unknown,omitempty"`
	// Partial (a team's) says some member's tokens or cost are unknown:
	// the sums are of those known.
	Partial bool `json:"partial,omitempty"`

	// Unreadable counts the lines of its CLI's records that were not
	// read (not JSON, a count no model reports, longer than
	// usage.MaxLine): what they held is not in the counts.
	Unreadable int `json:"unreadableLines,omitempty"`

	// Followed says the member's CLI keeps records paneteam reads (its
	// source names files or patterns): its spending can grow while no
	// file of the team changes, so a watcher keeps polling for it.
	Followed bool `json:"-"`
	// Records are the folders its records are in or may appear in
	// (usage.Source.Dirs), AllRecords whether those are all of them: a
	// watcher waits on their file events in place of polling.
	Records    []string `json:"-"`
	AllRecords bool     `json:"-"`
	// Behind says its records are larger than one read reads
	// (usage.ReadBudget): the counts are what was read so far.
	Behind bool `json:"behind,omitempty"`

	// Spend is what was read, for a budget or a team's sum.
	Spend usage.Spend `json:"-"`
}

// Known reports whether the tokens are known.
func (c Cost) Known() bool { return c.Unknown == "" && c.InputTokens != nil }

// Reader reads members' costs with one store of cursors and one pricer.
type Reader struct {
	Store    usage.Store
	Launches launches.Store
	Pricer   prices.Pricer
}

// NewReader reads with paneteam's state folder state and config folder
// configDir (its prices.json; "": the shipped prices alone). The prices
// of the models it meets are kept in the state folder (prices.Seen), so
// the price table is parsed only for a model not met before.
func NewReader(state, configDir string) *Reader {
	return &Reader{Store: usage.Open(state), Launches: launches.Open(state), Pricer: prices.NewSeen(state, configDir)}
}

// Done keeps the prices met; call it when the reads are over.
func (r *Reader) Done() error {
	if s, ok := r.Pricer.(*prices.Seen); ok {
		if err := s.Err(); err != nil {
			return err
		}
		return s.Save()
	}
	return nil
}

// noRecord is why a member without a launch record has no usage.
const noRecord = "no launch record: Claude Code started it itself, so paneteam does not know its session"

// SourceOf is where member name of t writes its usage, from its launch
// record in the state folder: what a budget watcher follows (with a
// usage.Tracker, priced by Reader.Priced). The lead's is config.json's
// lead session (cfg nil: read from t).
func SourceOf(state string, t team.Team, cfg *team.Config, name string) (usage.Source, error) {
	if name == team.LeadName {
		if cfg == nil {
			c, err := team.Load(t.ConfigPath())
			if err != nil {
				return usage.Source{}, err
			}
			cfg = c
		}
		if src, ok := usage.ForLead(t, cfg); ok {
			return src, nil
		}
		return usage.Source{Unknown: "the lead is not a model paneteam can follow"}, nil
	}
	rec, err := launches.Open(state).Read(t.Root, t.Name, name)
	if err != nil {
		return usage.Source{}, err
	}
	if rec == nil {
		return usage.Source{Unknown: noRecord}, nil
	}
	return usage.ForLaunch(*rec, panedialog.RunDir(t, name)), nil
}

// Team is every member's cost, by name, and the team's total. A member
// whose cost cannot be read says why in its Unknown.
func (r *Reader) Team(t team.Team, cfg *team.Config) (map[string]Cost, Cost) {
	out := map[string]Cost{}
	batch := &usage.Batch{Store: r.Store, Key: t.Root + "\x00" + t.Name}
	defer batch.Close() //nolint:errcheck // a batch not kept costs one file per transcript next time
	srcs := r.sources(batch, t, cfg)
	for _, m := range cfg.Members {
		var src usage.Source
		if m.Name == team.LeadName {
			s, ok := usage.ForLead(t, cfg)
			if !ok {
				continue // paneteam's lead: the person, no model
			}
			src = s
		} else {
			src = srcs[m.Name]
		}
		out[m.Name] = r.of(batch, src)
	}
	total := r.Total(out)
	return out, total
}

// sources are the teammates' sources, by name, from their launch
// records. The status line asks every few seconds: the sources found
// last time are kept with the batch under the launch records folder's
// modification time, which every record written or forgotten changes
// (each is written whole, by a rename), so while it holds they are
// used without reading a record.
func (r *Reader) sources(batch *usage.Batch, t team.Team, cfg *team.Config) map[string]usage.Source {
	stamp := ""
	if st, err := os.Lstat(r.Launches.Dir); err == nil {
		stamp = strconv.FormatInt(st.ModTime().UnixNano(), 10)
	}
	if kept := batch.Sources(stamp); kept != nil && hasAll(kept, cfg) {
		return kept
	}
	recs, errs := r.Launches.List(t.Root, t.Name)
	byName := map[string]launches.Record{}
	for _, rec := range recs {
		byName[rec.Agent] = rec
	}
	srcs := map[string]usage.Source{}
	for _, m := range cfg.Members {
		if m.Name == team.LeadName {
			continue
		}
		if rec, ok := byName[m.Name]; ok {
			srcs[m.Name] = usage.ForLaunch(rec, panedialog.RunDir(t, m.Name))
		} else {
			srcs[m.Name] = usage.Source{Unknown: noRecord}
		}
	}
	if len(errs) == 0 {
		// A record that could not be read is looked at again next time.
		batch.KeepSources(stamp, srcs)
	}
	return srcs
}

// hasAll reports whether kept has a source for every teammate of cfg.
func hasAll(kept map[string]usage.Source, cfg *team.Config) bool {
	for _, m := range cfg.Members {
		if _, ok := kept[m.Name]; !ok && m.Name != team.LeadName {
			return false
		}
	}
	return true
}

// Of is the cost of what src holds now.
func (r *Reader) Of(src usage.Source) Cost { return r.of(r.Store, src) }

func (r *Reader) of(from interface {
	Read(usage.Source) (usage.Spend, error)
}, src usage.Source) Cost {
	s, err := from.Read(src)
	if err != nil {
		why := err.Error()
		var u *usage.UnknownError
		if errors.As(err, &u) {
			why = u.Why
		}
		return followedBy(Cost{Unknown: why, Models: []string{}}, src)
	}
	return followedBy(r.Priced(s), src)
}

// followedBy is c with where src's records are, when it has some.
func followedBy(c Cost, src usage.Source) Cost {
	if c.Followed = followed(src); c.Followed {
		c.Records, c.AllRecords = src.Dirs()
	}
	return c
}

// followed: src names records to read, not only why there are none.
func followed(src usage.Source) bool {
	return src.Unknown == "" && (len(src.Patterns) > 0 || len(src.Files) > 0)
}

// Priced is s with its cost at the table's prices.
func (r *Reader) Priced(s usage.Spend) Cost {
	t := s.Tokens()
	c := Cost{InputTokens: &t.Input, OutputTokens: &t.Output, CacheReadTokens: &t.CacheRead, CacheWriteTokens: &t.CacheWrite,
		Models: s.ModelNames(), Spend: s, Unreadable: s.Skipped, Behind: s.Behind}
	if c.Models == nil {
		c.Models = []string{}
	}
	usd, unpriced := prices.Cost(r.Pricer, s)
	c.Unpriced = unpriced
	if len(unpriced) == 0 {
		c.CostUSD = &usd
	}
	return c
}

// Total sums members' costs: the tokens and dollars of those known, and
// Partial when any is unknown.
func (r *Reader) Total(members map[string]Cost) Cost {
	var sum usage.Spend
	partial := false
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	sort.Strings(names)
	usd, known, priced := 0.0, false, false
	for _, n := range names {
		c := members[n]
		if !c.Known() {
			partial = true
			continue
		}
		sum, known = sum.Add(c.Spend), true
		if c.CostUSD == nil {
			partial = true
		} else {
			usd, priced = usd+*c.CostUSD, true
		}
	}
	if !known && len(members) > 0 {
		return Cost{Models: []string{}, Unknown: "no member's usage is known", Partial: true}
	}
	total := r.Priced(sum) // no member with a model: a known nothing
	total.CostUSD, total.Unpriced, total.Partial = nil, nil, partial
	if priced || len(members) == 0 {
		total.CostUSD = &usd
	}
	return total
}
