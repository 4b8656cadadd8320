// Package budget is a spending limit on a teammate, and on a team: what
// was set, what was spent against it, and whether the teammate was
// warned or stopped. It is kept in paneteam's state folder, never in the
// team's folder (which every teammate can write) nor in Claude Code's
// config.json. The process that owns a teammate's launch (the teammate
// wrapper, the router, the guard in a Claude teammate's pane) follows
// its spending with a Watch and stops it past its budget.
//
// A budget is a guard against runaway spending: it reads what the
// teammate's own CLI records, so a teammate that edits its own
// transcript can hide what it spent.
package budget

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// States of a budget.
const (
	OK      = "ok"
	Warned  = "warned"  // WarnAt of it spent: the lead was told
	Stopped = "stopped" // spent: the teammate was asked to stop, then ended
)

// WarnAt is the share of a budget at which the lead is told.
const WarnAt = 0.8

// Status is one member's budget as status shows it.
type Status struct {
	// USD is the budget: the member's own, else the team's.
	USD float64 `json:"usd"`
	// SpentUSD is what it had spent at the watcher's last look; nil
	// while unknown (nothing read yet, or a model with no price).
	SpentUSD *float64 `json:"spentUSD"`
	State    string   `json:"state"`
	// Team says USD is the team's budget (the sum of every member's
	// spending is held to it), not the member's own.
	Team bool `json:"team,omitempty"`
	// Why says, once stopped, what was over and how it was stopped.
	Why     string    `json:"why,omitempty"`
	Updated time.Time `json:"updated"`
}

// Folder is where the budgets of team t are kept: one folder per team
// root and name under <state>/budgets, so two roots' teams of the same
// name keep theirs apart.
func Folder(state string, t team.Team) string {
	sum := sha256.Sum256([]byte(t.Root + "\x00" + t.Name))
	return filepath.Join(state, "budgets", hex.EncodeToString(sum[:8]))
}

// teamFile holds the team's own budget; member files are <name>.json.
const teamFile = "team.budget"

// SetTeam sets team t's budget (0 removes it).
func SetTeam(state string, t team.Team, usd float64) error {
	dir := Folder(state, t)
	if usd <= 0 {
		if err := os.Remove(filepath.Join(dir, teamFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove team %s's budget: %w", t.Name, err)
		}
		return nil
	}
	return write(filepath.Join(dir, teamFile), struct {
		USD float64 `json:"usd"`
	}{usd})
}

// TeamBudget is team t's budget, 0 when it has none.
func TeamBudget(state string, t team.Team) float64 {
	var v struct {
		USD float64 `json:"usd"`
	}
	if read(filepath.Join(Folder(state, t), teamFile), &v) != nil {
		return 0
	}
	return v.USD
}

// Save keeps member name's budget status.
func Save(state string, t team.Team, name string, s Status) error {
	return write(filepath.Join(Folder(state, t), name+".json"), s)
}

// Load is member name's budget status, nil when it has none.
func Load(state string, t team.Team, name string) *Status {
	var s Status
	if read(filepath.Join(Folder(state, t), name+".json"), &s) != nil {
		return nil
	}
	return &s
}

// All is every member's budget status in team t, by name: one folder
// read, for status.
func All(state string, t team.Team) map[string]Status {
	dir := Folder(state, t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]Status{}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		var s Status
		if read(filepath.Join(dir, e.Name()), &s) == nil {
			out[name] = s
		}
	}
	return out
}

// Forget removes team t's budgets (the team is gone).
func Forget(state string, t team.Team) error {
	if err := os.RemoveAll(Folder(state, t)); err != nil {
		return fmt.Errorf("remove team %s's budgets: %w", t.Name, err)
	}
	return nil
}

func read(path string, v any) error {
	f, err := safefs.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return json.NewDecoder(f).Decode(v)
}

// write replaces path's content at once (a reader never sees half), with
// lockfile's atomic write, which also sweeps the temp files a killed
// watcher left.
func write(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), lockfile.DirPerm); err != nil {
		return fmt.Errorf("keep a budget: %w", err)
	}
	if err := lockfile.WriteAtomic(path, b); err != nil {
		return fmt.Errorf("keep a budget: %w", err)
	}
	return nil
}
