package cost

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// Ended is what a team spent, kept in paneteam's state folder when the
// team is cleaned up (its members' records go with it).
type Ended struct {
	Team    string          `json:"team"`
	Root    string          `json:"root"`
	Ended   string          `json:"ended"` // RFC 3339, UTC
	Members map[string]Cost `json:"members"`
	Usage   Cost            `json:"usage"`
}

// endedDir is where ended teams' spending is kept.
func endedDir(state string) string { return filepath.Join(state, "usage", "ended") }

func endedPath(state, root, name string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + name))
	return filepath.Join(endedDir(state), team.SanitizePath(name)+"."+hex.EncodeToString(sum[:6])+".json")
}

// Keep reads what t's members spent and keeps it in the state folder, with
// what an earlier cleanup of the same team kept of members gone since
// (a team kept half-cleaned is cleaned again later).
func (r *Reader) Keep(state string, t team.Team, cfg *team.Config) error {
	members, _ := r.Team(t, cfg)
	root, _ := filepath.Abs(t.Root)
	path := endedPath(state, root, t.Name)
	if b, err := safefs.ReadFile(path); err == nil {
		var old Ended
		if json.Unmarshal(b, &old) == nil {
			for n, c := range old.Members {
				if _, ok := members[n]; !ok {
					members[n] = c
				}
			}
		}
	}
	// A cost read from JSON has lost its spend: the total is summed from
	// the fields kept.
	e := Ended{Team: t.Name, Root: root, Ended: time.Now().UTC().Format(time.RFC3339), Members: members, Usage: sumKept(members)}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(endedDir(state), lockfile.DirPerm); err != nil {
		return fmt.Errorf("keep team %s's spending: %w", t.Name, err)
	}
	if err := lockfile.WriteAtomic(path, append(b, '\n')); err != nil {
		return fmt.Errorf("keep team %s's spending: %w", t.Name, err)
	}
	return nil
}

// sumKept sums members' costs from their fields.
func sumKept(members map[string]Cost) Cost {
	var in, out, cr, cw int64
	usd, known, priced, partial := 0.0, false, false, false
	models := map[string]bool{}
	for _, c := range members {
		if !c.Known() {
			partial = true
			continue
		}
		known = true
		in, out, cr, cw = in+*c.InputTokens, out+*c.OutputTokens, cr+*c.CacheReadTokens, cw+*c.CacheWriteTokens
		for _, m := range c.Models {
			models[m] = true
		}
		if c.CostUSD == nil {
			partial = true
		} else {
			usd, priced = usd+*c.CostUSD, true
		}
	}
	if !known {
		return Cost{Models: []string{}, Unknown: "no member's usage is known", Partial: len(members) > 0}
	}
	total := Cost{InputTokens: &in, OutputTokens: &out, CacheReadTokens: &cr, CacheWriteTokens: &cw, Partial: partial, Models: []string{}}
	for m := range models {
		total.Models = append(total.Models, m)
	}
	sort.Strings(total.Models)
	if priced {
		total.CostUSD = &usd
	}
	return total
}

// EndedTeams are the ended teams' spending kept in the state folder, the
// most recently ended first; a file that does not read is skipped.
func EndedTeams(state string) ([]Ended, error) {
	entries, err := os.ReadDir(endedDir(state))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Ended
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := safefs.ReadFile(filepath.Join(endedDir(state), e.Name()))
		var t Ended
		if err != nil || json.Unmarshal(b, &t) != nil {
			continue
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ended > out[j].Ended })
	return out, nil
}
