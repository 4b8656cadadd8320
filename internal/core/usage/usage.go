// Package usage reads what each teammate's model reported it spent:
// input, output, cache-read and cache-write tokens per model, from the
// files each CLI keeps of its own run (Claude Code's transcript, found by
// the session id in the teammate's launch record; Codex's rollouts under
// its CODEX_HOME; Gemini CLI's chat records; the usage paneteam's OpenCode
// plugin writes in the run's folder).
//
// Those files grow to megabytes and the tmux status line asks every few
// seconds as a new process, so each is read incrementally: a Cursor keeps
// how far a file was read and what it held so far, and a Store keeps the
// cursors in paneteam's state folder. A file is opened without following
// a link; a line that does not parse costs only that line.
//
// Prices are not here: package prices turns a Spend into dollars.
package usage

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Tokens are one model's counts. Input is the input read at the full
// price: without the cache reads and writes, which are counted apart
// (each CLI's own counts are brought to this meaning).
type Tokens struct {
	Input      int64 `json:"inputTokens"`
	Output     int64 `json:"outputTokens"`
	CacheRead  int64 `json:"cacheReadTokens"`
	CacheWrite int64 `json:"cacheWriteTokens"`
}

// MaxReplyTokens is the largest count one reply may report in each of
// its four kinds: a thousand times the largest context window offered
// (1M tokens). A line with more, or with a negative count, is not read
// (Spend.Skipped): a teammate writes its own transcript, and such a
// count would show negative dollars, wrap a team's total or push the
// whole team past its budget.
const MaxReplyTokens = 1 << 30

// MaxSessionTokens bounds the cumulative totals of a session (Codex's
// rollouts): a thousand replies at MaxReplyTokens.
const MaxSessionTokens = 1 << 40

// check refuses counts below zero or above limit.
func (t Tokens) check(limit int64) error {
	for _, n := range [...]int64{t.Input, t.Output, t.CacheRead, t.CacheWrite} {
		if n < 0 || n > limit {
			return fmt.Errorf("a token count of %d is not one a model reports", n)
		}
	}
	return nil
}

// Add returns t plus u. The sums saturate rather than wrap: counts are
// bounded where they are read, but many of them add up.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{sat(t.Input, u.Input), sat(t.Output, u.Output), sat(t.CacheRead, u.CacheRead), sat(t.CacheWrite, u.CacheWrite)}
}

// Sub returns t minus u.
func (t Tokens) Sub(u Tokens) Tokens {
	return Tokens{sat(t.Input, neg(u.Input)), sat(t.Output, neg(u.Output)), sat(t.CacheRead, neg(u.CacheRead)), sat(t.CacheWrite, neg(u.CacheWrite))}
}

// Total is every token counted.
func (t Tokens) Total() int64 { return sat(sat(t.Input, t.Output), sat(t.CacheRead, t.CacheWrite)) }

// sat is a+b, held at the ends of int64 rather than wrapped.
func sat(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

func neg(a int64) int64 {
	if a == math.MinInt64 {
		return math.MaxInt64
	}
	return -a
}

// Model is what was spent on one model. A price may depend on the size
// of each request's prompt (a "long context" tier), so the tokens of the
// replies whose prompt (input with the cache reads and writes) was over
// each of TierStarts are counted apart too.
type Model struct {
	Tokens
	Replies int `json:"replies"`
	// MaxPrompt is the largest prompt of one reply.
	MaxPrompt int64 `json:"maxPrompt"`
	// Over holds, by tier start, the tokens of replies whose prompt was
	// larger than it (only starts some reply passed).
	Over map[int64]Tokens `json:"over,omitempty"`
}

// TierStarts are the prompt sizes where a price table's tiers begin
// (genai-prices: a tier's price applies when a request's input is over
// its start). A price tier starting elsewhere makes a cost that passed
// it unknown (package prices).
var TierStarts = [...]int64{128000, 199999, 200000, 271999, 272000, 512000}

// Spend is what one member (or a team) spent: per model, as its CLI named
// the model.
type Spend struct {
	Models map[string]Model `json:"models"`
	// Skipped counts lines that did not parse, or held a count no reply
	// has, or were longer than MaxLine (each cost only itself).
	Skipped int `json:"skipped,omitempty"`
	// Behind says a file has more than one read reads (ReadBudget): what
	// is counted so far is less than what was written, and the next read
	// goes on.
	Behind bool `json:"behind,omitempty"`
}

// Tokens is the sum over every model.
func (s Spend) Tokens() Tokens {
	var t Tokens
	for _, m := range s.Models {
		t = t.Add(m.Tokens)
	}
	return t
}

// Replies counts the replies over every model.
func (s Spend) Replies() int {
	n := 0
	for _, m := range s.Models {
		n += m.Replies
	}
	return n
}

// ModelNames are the models, sorted.
func (s Spend) ModelNames() []string { return slices.Sorted(maps.Keys(s.Models)) }

// Add returns s plus o.
func (s Spend) Add(o Spend) Spend {
	out := Spend{Models: map[string]Model{}, Skipped: s.Skipped + o.Skipped, Behind: s.Behind || o.Behind}
	for _, src := range []map[string]Model{s.Models, o.Models} {
		for k, v := range src {
			out.Models[k] = out.Models[k].plus(v)
		}
	}
	return out
}

func (m Model) plus(o Model) Model {
	out := Model{Tokens: m.Tokens.Add(o.Tokens), Replies: m.Replies + o.Replies, MaxPrompt: max(m.MaxPrompt, o.MaxPrompt)}
	for _, src := range []map[int64]Tokens{m.Over, o.Over} {
		for k, v := range src {
			if out.Over == nil {
				out.Over = map[int64]Tokens{}
			}
			out.Over[k] = out.Over[k].Add(v)
		}
	}
	return out
}

// add counts t, a reply's tokens (sign -1: takes them back) with its
// prompt's size.
func (s *Spend) add(model string, t Tokens, prompt int64, replies int) {
	if s.Models == nil {
		s.Models = map[string]Model{}
	}
	d := Model{Tokens: t, Replies: replies, MaxPrompt: prompt}
	for _, start := range TierStarts {
		if prompt > start {
			if d.Over == nil {
				d.Over = map[int64]Tokens{}
			}
			d.Over[start] = t
		}
	}
	m := s.Models[model].plus(d)
	for k, v := range m.Over {
		if v == (Tokens{}) {
			delete(m.Over, k)
		}
	}
	s.Models[model] = m
}

// Prompt is a reply's prompt: what a price tier is chosen by.
func (t Tokens) Prompt() int64 { return sat(sat(t.Input, t.CacheRead), t.CacheWrite) }
