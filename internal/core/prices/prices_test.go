package prices

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paneteam/paneteam/internal/core/usage"
)

func spend(model string, m usage.Model) usage.Spend {
	return usage.Spend{Models: map[string]usage.Model{model: m}}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCostAtTheShippedPrices(t *testing.T) {
	table, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	// claude-haiku-4-5: $1 in, $5 out, $0.10 cache read, $1.25 cache
	// write per million tokens in the table.
	usd, unpriced := table.Cost(spend("claude-haiku-4-5-20251001", usage.Model{Tokens: usage.Tokens{Input: 12000, Output: 3000, CacheRead: 40000, CacheWrite: 1000}}))
	if len(unpriced) > 0 || !near(usd, 0.03225) {
		t.Fatalf("claude-haiku-4-5: $%v (unpriced %v), want $0.03225", usd, unpriced)
	}
	// gemini-2.5-pro: $1.25/$10 up to a 200k prompt, $2.50/$15 over it,
	// chosen per reply: one of 100k and one of 300k.
	big := usage.Tokens{Input: 300000, Output: 2000}
	over := map[int64]usage.Tokens{}
	for _, s := range usage.TierStarts {
		if 300000 > s {
			over[s] = big
		}
	}
	usd, unpriced = table.Cost(spend("gemini-2.5-pro", usage.Model{Tokens: usage.Tokens{Input: 400000, Output: 3000}, MaxPrompt: 300000, Over: over}))
	if len(unpriced) > 0 || !near(usd, 0.915) {
		t.Fatalf("gemini-2.5-pro across its tier: $%v (unpriced %v), want $0.915", usd, unpriced)
	}
	// A model the table does not know: its tokens, no guessed cost.
	_, unpriced = table.Cost(spend("fake-model", usage.Model{Tokens: usage.Tokens{Input: 1}}))
	if !slices.Equal(unpriced, []string{"fake-model"}) {
		t.Fatalf("an unknown model: unpriced %v, want it named", unpriced)
	}
}

func TestYourPricesComeFirst(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, OverrideFile), []byte(`{"models": {"fake-*": {"input_mtok": 1, "output_mtok": 2}, "claude-haiku-4-5": {"input_mtok": 100, "output_mtok": 100}}}`), 0o600)
	table, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	usd, unpriced := table.Cost(spend("fake-model", usage.Model{Tokens: usage.Tokens{Input: 1e6, Output: 1e6}}))
	if len(unpriced) > 0 || !near(usd, 3) {
		t.Fatalf("fake-model at your prices: $%v (%v), want $3", usd, unpriced)
	}
	usd, _ = table.Cost(spend("claude-haiku-4-5", usage.Model{Tokens: usage.Tokens{Input: 1e6}}))
	if !near(usd, 100) {
		t.Fatalf("claude-haiku-4-5 at your price: $%v, want $100 (yours over the table's)", usd)
	}
	// A cache read you gave no price for: unknown, not free.
	_, unpriced = table.Cost(spend("fake-model", usage.Model{Tokens: usage.Tokens{CacheRead: 5}}))
	if len(unpriced) != 1 {
		t.Fatalf("a token kind without a price was priced: %v", unpriced)
	}
	os.WriteFile(filepath.Join(dir, OverrideFile), []byte(`{"models": [}`), 0o600)
	if _, err := Load(dir); err == nil {
		t.Fatal("a prices.json that does not parse was taken")
	}
}

// The shipped table is dated, says where it comes from, and every tier
// it has starts where usage counts prompts apart (a refreshed table with
// a new start fails here: add it to usage.TierStarts).
func TestShippedTable(t *testing.T) {
	table, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if table.Date == "" || table.Source == "" || len(table.providers) < 10 {
		t.Fatalf("shipped table: date %q, source %q, %d providers", table.Date, table.Source, len(table.providers))
	}
	for _, p := range table.providers {
		for _, m := range p.Models {
			var prices []Price
			var one Price
			if err := jsonUnmarshal(m.Prices, &one); err == nil {
				prices = append(prices, one)
			} else {
				var list []struct{ Prices Price }
				if err := jsonUnmarshal(m.Prices, &list); err != nil {
					t.Fatalf("%s/%s: prices do not read: %v", p.ID, m.ID, err)
				}
				for _, c := range list {
					prices = append(prices, c.Prices)
				}
			}
			for _, pr := range prices {
				for _, r := range []*Rate{pr.Input, pr.Output, pr.CacheRead, pr.CacheWrite} {
					for _, tier := range rTiers(r) {
						if !counted(tier.Start) {
							t.Errorf("%s/%s has a tier at %d, which usage.TierStarts lacks", p.ID, m.ID, tier.Start)
						}
					}
				}
			}
		}
	}
}

func rTiers(r *Rate) []Tier {
	if r == nil {
		return nil
	}
	return r.Tiers
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
