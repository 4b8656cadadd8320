package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
)

// errNoID: a reply without an id cannot be told from its repeats.
var errNoID = errors.New("a reply without an id")

// claudeLine reads a transcript line of Claude Code: an assistant line
// carries message.usage exactly as the API returned it, where
// input_tokens leaves out the cache reads and writes.
func claudeLine(b []byte) (Reply, bool, error) {
	// Most lines (tool results, prompts, hook records) carry no usage:
	// not worth decoding, and some are megabytes.
	if !bytes.Contains(b, []byte(`"usage"`)) {
		if !json.Valid(b) {
			return Reply{}, false, errors.New("not JSON")
		}
		return Reply{}, false, nil
	}
	var l struct {
		Type    string `json:"type"`
		Message struct {
			ID    string `json:"id"`
			Model string `json:"model"`
			Usage *struct {
				Input      int64 `json:"input_tokens"`
				CacheWrite int64 `json:"cache_creation_input_tokens"`
				CacheRead  int64 `json:"cache_read_input_tokens"`
				Output     int64 `json:"output_tokens"`
			} `json:"usage"`
		} `json:"message"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return Reply{}, false, err
	}
	m := l.Message
	// "<synthetic>" is Claude Code's own stand-in reply (an error shown
	// as the model's): no model was asked.
	if l.Type != "assistant" || m.Usage == nil || m.Model == "<synthetic>" {
		return Reply{}, false, nil
	}
	if m.ID == "" {
		return Reply{}, false, errNoID
	}
	u := m.Usage
	t := Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
	if err := t.check(MaxReplyTokens); err != nil {
		return Reply{}, false, err
	}
	return Reply{ID: m.ID, Model: m.Model, Tokens: t}, true, nil
}

// geminiLine reads a record of Gemini CLI's chat file: a "gemini"
// message with the usageMetadata of its reply, where input (the prompt)
// includes the cached part and thoughts are billed as output.
func geminiLine(b []byte) (Reply, bool, error) {
	var l struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		Model  string `json:"model"`
		Tokens *struct {
			Input    int64 `json:"input"`
			Output   int64 `json:"output"`
			Cached   int64 `json:"cached"`
			Thoughts int64 `json:"thoughts"`
			Tool     int64 `json:"tool"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return Reply{}, false, err
	}
	if l.Type != "gemini" || l.Tokens == nil {
		return Reply{}, false, nil
	}
	if l.ID == "" {
		return Reply{}, false, errNoID
	}
	t := l.Tokens
	raw := []int64{t.Input, t.Output, t.Cached, t.Thoughts, t.Tool}
	if err := (Tokens{Input: slices.Min(raw), Output: slices.Max(raw)}).check(MaxReplyTokens); err != nil {
		return Reply{}, false, err
	}
	if t.Cached > t.Input {
		return Reply{}, false, errors.New("more cached tokens than input ones")
	}
	return Reply{ID: l.ID, Model: l.Model, Tokens: Tokens{Input: t.Input - t.Cached + t.Tool, Output: t.Output + t.Thoughts, CacheRead: t.Cached}}, true, nil
}

// openCodeLine reads a line paneteam's OpenCode plugin writes: an
// assistant message's info as OpenCode reports it (input without the
// cache; reasoning billed as output).
func openCodeLine(b []byte) (Reply, bool, error) {
	var l struct {
		ID     string `json:"id"`
		Model  string `json:"model"`
		Tokens struct {
			Input     int64 `json:"input"`
			Output    int64 `json:"output"`
			Reasoning int64 `json:"reasoning"`
			Cache     struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return Reply{}, false, err
	}
	if l.ID == "" {
		return Reply{}, false, errNoID
	}
	t := l.Tokens
	raw := []int64{t.Input, t.Output, t.Reasoning, t.Cache.Read, t.Cache.Write}
	if err := (Tokens{Input: slices.Min(raw), Output: slices.Max(raw)}).check(MaxReplyTokens); err != nil {
		return Reply{}, false, err
	}
	return Reply{ID: l.ID, Model: l.Model, Tokens: Tokens{Input: t.Input, Output: t.Output + t.Reasoning, CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write}}, true, nil
}

// codexLine reads a line of a Codex rollout: turn_context names the
// model; a token_count event carries the session's totals so far (input
// including the cached part; output including reasoning). Only their
// growth is added, so the sum is always the last total.
func (c *Cursor) codexLine(b []byte) error {
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Type  string `json:"type"`
			Model string `json:"model"`
			Info  *struct {
				Total *codexTokens `json:"total_token_usage"`
				Last  *codexTokens `json:"last_token_usage"`
			} `json:"info"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	p := l.Payload
	switch {
	case l.Type == "turn_context" && p.Model != "":
		c.Model = p.Model
	case l.Type == "event_msg" && p.Type == "token_count" && p.Info != nil && p.Info.Total != nil:
		total, err := p.Info.Total.tokens(MaxSessionTokens)
		if err != nil {
			return err
		}
		grew := total.Sub(c.Total)
		if grew.check(MaxSessionTokens) != nil {
			return errors.New("cumulative totals that went down")
		}
		if grew.Total() == 0 {
			return nil // the same totals again (a rate-limit update)
		}
		// The last request's prompt chooses a price tier; without it, the
		// growth is one request's.
		prompt := grew.Prompt()
		if p.Info.Last != nil {
			last, err := p.Info.Last.tokens(MaxReplyTokens)
			if err != nil {
				return err
			}
			prompt = last.Prompt()
		}
		c.Spend.add(c.Model, grew, prompt, 1)
		c.Total = total
	}
	return nil
}

type codexTokens struct {
	Input  int64 `json:"input_tokens"`
	Cached int64 `json:"cached_input_tokens"`
	Output int64 `json:"output_tokens"`
}

// tokens are Codex's counts in Tokens' meaning (its input includes the
// cached part), each at most limit.
func (u codexTokens) tokens(limit int64) (Tokens, error) {
	if u.Cached > u.Input {
		return Tokens{}, errors.New("more cached tokens than input ones")
	}
	t := Tokens{Input: u.Input - u.Cached, Output: u.Output, CacheRead: u.Cached}
	return t, t.check(limit)
}
