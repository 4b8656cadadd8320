package team

import "encoding/json"

// Claude Code adds fields to its files from one version to the next, and
// other tools add their own; the records keep every key they do not know,
// in the order it was read, and write it back. Extra and SetExtra reach
// those keys by name.

// Extra returns the raw value of a config.json key Config does not know.
func (c *Config) Extra(key string) (json.RawMessage, bool) { return c.extra.Get(key) }

// SetExtra stores a raw value under a config.json key Config does not
// know; a new key is written after those that were read.
func (c *Config) SetExtra(key string, v json.RawMessage) {
	if key == leadProcessKey {
		c.lead = leadMemo{}
	}
	c.extra.Set(key, v)
}

// Extra returns the raw value of a member's key Member does not know.
func (m *Member) Extra(key string) (json.RawMessage, bool) { return m.extra.Get(key) }

// SetExtra stores a raw value under a member's key Member does not know.
func (m *Member) SetExtra(key string, v json.RawMessage) { m.extra.Set(key, v) }

// Extra returns the raw value of a task file's key Task does not know.
func (t *Task) Extra(key string) (json.RawMessage, bool) { return t.extra.Get(key) }

// SetExtra stores a raw value under a task file's key Task does not know.
func (t *Task) SetExtra(key string, v json.RawMessage) { t.extra.Set(key, v) }
