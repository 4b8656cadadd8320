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
	"maps"
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

// Add returns t plus u.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{t.Input + u.Input, t.Output + u.Output, t.CacheRead + u.CacheRead, t.CacheWrite + u.CacheWrite}
}

// Sub returns t minus u.
func (t Tokens) Sub(u Tokens) Tokens {
	return Tokens{t.Input - u.Input, t.Output - u.Output, t.CacheRead - u.CacheRead, t.CacheWrite - u.CacheWrite}
}

// Total is every token counted.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

// Spend is what one member (or a team) spent: tokens per model, and how
// many replies they came in. A model's name is as its CLI wrote it.
type Spend struct {
	Models  map[string]Tokens `json:"models"`
	Replies int               `json:"replies"`
	// Skipped counts lines that did not parse (each cost only itself).
	Skipped int `json:"skipped,omitempty"`
}

// Tokens is the sum over every model.
func (s Spend) Tokens() Tokens {
	var t Tokens
	for _, m := range s.Models {
		t = t.Add(m)
	}
	return t
}

// ModelNames are the models, sorted.
func (s Spend) ModelNames() []string { return slices.Sorted(maps.Keys(s.Models)) }

// Add returns s plus o.
func (s Spend) Add(o Spend) Spend {
	out := Spend{Models: map[string]Tokens{}, Replies: s.Replies + o.Replies, Skipped: s.Skipped + o.Skipped}
	for _, src := range []map[string]Tokens{s.Models, o.Models} {
		for k, v := range src {
			out.Models[k] = out.Models[k].Add(v)
		}
	}
	return out
}

func (s *Spend) add(model string, t Tokens) {
	if s.Models == nil {
		s.Models = map[string]Tokens{}
	}
	s.Models[model] = s.Models[model].Add(t)
}
