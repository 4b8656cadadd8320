// Package prices turns tokens into dollars: the price table of the npm
// package @pydantic/genai-prices (MIT), converted into a dated data file
// shipped inside paneteam (scripts/genai-prices refreshes it), under the
// person's own prices from prices.json in paneteam's config folder.
//
// The table is half a megabyte of JSON: it is parsed only when a cost is
// asked for, never when paneteam starts (the tmux status line starts
// paneteam every few seconds). A model the table does not price has an
// unknown cost, never a guessed one.
package prices

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/core/usage"
	"github.com/paneteam/paneteam/internal/sys/safefs"
)

//go:embed genai-prices.json
var shipped []byte

// OverrideFile is the person's own prices, in paneteam's config folder.
const OverrideFile = "prices.json"

// Table is a price table: the shipped one, with the person's prices over
// it.
type Table struct {
	// Source and Date say where the shipped prices come from and when
	// they were taken.
	Source string `json:"source"`
	Date   string `json:"date"`
	// Override is the file of the person's prices read, "" when none.
	Override  string
	providers []provider
	own       map[string]Price // the person's, by model name ("name*": a prefix)
}

// Price is one model's price, in dollars per million tokens, each
// either a number or tiers by prompt size.
type Price struct {
	Input      *Rate `json:"input_mtok,omitempty"`
	Output     *Rate `json:"output_mtok,omitempty"`
	CacheRead  *Rate `json:"cache_read_mtok,omitempty"`
	CacheWrite *Rate `json:"cache_write_mtok,omitempty"`
}

// Rate is a price per million tokens: Base, or a tier's price for a
// request whose prompt is over the tier's start.
type Rate struct {
	Base  float64
	Tiers []Tier
}

// Tier is a price from a prompt size on.
type Tier struct {
	Start int64   `json:"start"`
	Price float64 `json:"price"`
}

// MarshalJSON writes a number, or {"base": n, "tiers": [...]}.
func (r Rate) MarshalJSON() ([]byte, error) {
	if len(r.Tiers) == 0 {
		return json.Marshal(r.Base)
	}
	return json.Marshal(struct {
		Base  float64 `json:"base"`
		Tiers []Tier  `json:"tiers"`
	}{r.Base, r.Tiers})
}

// UnmarshalJSON reads a number or {"base": n, "tiers": [...]}.
func (r *Rate) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &r.Base); err == nil {
		return nil
	}
	var t struct {
		Base  float64 `json:"base"`
		Tiers []Tier  `json:"tiers"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("a price is a number or {\"base\": n, \"tiers\": [{\"start\": n, \"price\": n}]}: %w", err)
	}
	r.Base, r.Tiers = t.Base, t.Tiers
	return nil
}

type provider struct {
	ID         string   `json:"id"`
	ModelMatch *match   `json:"model_match"`
	Fallback   []string `json:"fallback_model_providers"`
	Models     []model  `json:"models"`
}

type model struct {
	ID     string          `json:"id"`
	Match  *match          `json:"match"`
	Prices json.RawMessage `json:"prices"` // a Price, or a list of {constraint, prices}
}

// shippedTable is the shipped table, parsed once, on first use.
var shippedTable = sync.OnceValues(func() (Table, error) {
	var t Table
	var raw struct {
		Source    string     `json:"source"`
		Date      string     `json:"date"`
		Providers []provider `json:"providers"`
	}
	if err := json.Unmarshal(shipped, &raw); err != nil {
		return t, fmt.Errorf("paneteam's price table: %w", err)
	}
	t.Source, t.Date, t.providers = raw.Source, raw.Date, raw.Providers
	return t, nil
})

// Shipped is the table shipped with paneteam alone.
func Shipped() (Table, error) { return shippedTable() }

// Load is the shipped table under the person's prices from configDir's
// prices.json (configDir "": none). A prices.json that does not parse is
// an error naming it: a cost from prices the person did not mean is
// worse than none.
func Load(configDir string) (Table, error) {
	t, err := Shipped()
	if err != nil || configDir == "" {
		return t, err
	}
	path := filepath.Join(configDir, OverrideFile)
	b, err := safefs.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("your prices %s: %w", path, err)
	}
	var own struct {
		Models map[string]Price `json:"models"`
	}
	if err := json.Unmarshal(b, &own); err != nil {
		return t, fmt.Errorf("your prices %s: %w (the file is {\"models\": {\"MODEL\": {\"input_mtok\": 3, \"output_mtok\": 15, \"cache_read_mtok\": 0.3, \"cache_write_mtok\": 3.75}}})", path, err)
	}
	t.Override, t.own = path, own.Models
	return t, nil
}

// Of is the price of the model named name now, and false when the table
// has none (or only one that depends on the hour of the day, which a
// total cannot say).
func (t Table) Of(name string) (Price, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if p, ok := t.ownPrice(name); ok {
		return p, true
	}
	m := t.find(name)
	if m == nil {
		if alt := dashedDate().ReplaceAllString(name, "$1$2-$3-$4"); alt != name {
			m = t.find(alt)
		}
	}
	if m == nil {
		return Price{}, false
	}
	return m.priceAt(time.Now())
}

func (t Table) ownPrice(name string) (Price, bool) {
	best, bestLen := Price{}, -1
	for k, p := range t.own {
		k = strings.ToLower(k)
		if k == name {
			return p, true
		}
		if pre, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(name, pre) && len(pre) > bestLen {
			best, bestLen = p, len(pre)
		}
	}
	return best, bestLen >= 0
}

// find is genai-prices' lookup without a provider: the first provider
// whose model_match takes the name, then its first model that does (or
// one of its fallback providers').
func (t Table) find(name string) *model {
	for i := range t.providers {
		p := &t.providers[i]
		if p.ModelMatch == nil || !p.ModelMatch.matches(name) {
			continue
		}
		if m := t.inProvider(p, name, true); m != nil {
			return m
		}
		return nil
	}
	return nil
}

func (t Table) inProvider(p *provider, name string, fallback bool) *model {
	for j := range p.Models {
		if p.Models[j].Match != nil && p.Models[j].Match.matches(name) {
			return &p.Models[j]
		}
	}
	if !fallback {
		return nil
	}
	for _, id := range p.Fallback {
		for i := range t.providers {
			if t.providers[i].ID == id {
				if m := t.inProvider(&t.providers[i], name, false); m != nil {
					return m
				}
			}
		}
	}
	return nil
}

// dashedDate is a model's date written without dashes (claude-…-20250929),
// which genai-prices tries again with them.
var dashedDate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])\b`)
})

// priceAt is genai-prices' choice among dated prices: the last whose
// start date has come. A price for some hours of the day is refused.
func (m *model) priceAt(now time.Time) (Price, bool) {
	var one Price
	if json.Unmarshal(m.Prices, &one) == nil {
		return one, true
	}
	var list []struct {
		Constraint *struct {
			Type      string `json:"type"`
			StartDate string `json:"start_date"`
		} `json:"constraint"`
		Prices Price `json:"prices"`
	}
	if err := json.Unmarshal(m.Prices, &list); err != nil || len(list) == 0 {
		return Price{}, false
	}
	for i := len(list) - 1; i >= 0; i-- {
		c := list[i].Constraint
		switch {
		case c == nil:
			return list[i].Prices, true
		case c.Type == "start_date":
			if d, err := time.Parse(time.DateOnly, c.StartDate); err == nil && !now.Before(d) {
				return list[i].Prices, true
			}
		default:
			return Price{}, false
		}
	}
	return list[0].Prices, true
}

// Pricer says a model's price: a Table, or Seen (the prices looked up
// before, kept).
type Pricer interface {
	Of(name string) (Price, bool)
}

// Cost is what spent cost at p's prices: the dollars of the models
// priced, and the models that are not (whose cost is unknown).
func Cost(p Pricer, s usage.Spend) (usd float64, unpriced []string) {
	for _, name := range s.ModelNames() {
		m := s.Models[name]
		price, ok := p.Of(name)
		var c float64
		if ok {
			c, ok = price.cost(m)
		}
		if !ok {
			if m.Tokens != (usage.Tokens{}) {
				unpriced = append(unpriced, name)
			}
			continue
		}
		usd += c
	}
	return usd, unpriced
}

// Cost is Cost at the table's prices.
func (t Table) Cost(s usage.Spend) (float64, []string) { return Cost(t, s) }

// cost is m's tokens at p; false when a token kind spent has no price, or
// a tier starts where usage did not count the prompts over it.
func (p Price) cost(m usage.Model) (float64, bool) {
	total := 0.0
	for _, k := range []struct {
		rate *Rate
		n    func(usage.Tokens) int64
	}{
		{p.Input, func(t usage.Tokens) int64 { return t.Input }},
		{p.Output, func(t usage.Tokens) int64 { return t.Output }},
		{p.CacheRead, func(t usage.Tokens) int64 { return t.CacheRead }},
		{p.CacheWrite, func(t usage.Tokens) int64 { return t.CacheWrite }},
	} {
		n := k.n(m.Tokens)
		if n == 0 {
			continue
		}
		if k.rate == nil {
			return 0, false
		}
		c, ok := k.rate.cost(m, k.n)
		if !ok {
			return 0, false
		}
		total += c
	}
	return total, true
}

// cost prices each reply's tokens at the tier its prompt reached: the
// tokens over each start, less those over the next.
func (r *Rate) cost(m usage.Model, n func(usage.Tokens) int64) (float64, bool) {
	price, tokens := r.Base, n(m.Tokens)
	usd := 0.0
	for _, tier := range r.Tiers {
		if m.MaxPrompt <= tier.Start {
			break
		}
		over, ok := m.Over[tier.Start]
		if !ok && !counted(tier.Start) {
			return 0, false
		}
		usd += price * float64(tokens-n(over)) / 1e6
		price, tokens = tier.Price, n(over)
	}
	return usd + price*float64(tokens)/1e6, true
}

func counted(start int64) bool {
	for _, s := range usage.TierStarts {
		if s == start {
			return true
		}
	}
	return false
}
