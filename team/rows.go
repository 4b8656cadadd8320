package team

import (
	"encoding/json"
	"fmt"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

// config.json is written by Claude Code, by paneteam, by every member and
// the tools they run. One member row of the wrong shape (a date where
// Claude Code writes epoch milliseconds, an object where a name goes) must
// cost that row, not the team: the row is left out of Members, kept as it
// was written, written back between the same neighbours by every change,
// and reported (SkippedMembers). Any other field of the wrong type still
// makes the file unreadable: it describes the whole team.

// SkippedMember is a member row of config.json paneteam could not read.
type SkippedMember struct {
	Path  string          // the config.json ("" for one not read from a file)
	Index int             // its place in members, from 1
	Raw   json.RawMessage // the row, as written
	Err   error           // why it did not decode
}

func (s *SkippedMember) Error() string {
	return fmt.Sprintf("team config %s: member row %d is not a member paneteam can read (%s); it is left as it is, "+
		"and the team works with its other members", s.Path, s.Index, jsonx.Why(s.Err))
}

func (s *SkippedMember) Unwrap() error { return s.Err }

// SkippedMembers lists the member rows left out of Members because they do
// not decode; each is kept in the file as it was.
func (c *Config) SkippedMembers() []*SkippedMember {
	var out []*SkippedMember
	for i, k := range c.kept {
		out = append(out, &SkippedMember{Path: c.path, Index: k.Index + 1, Raw: k.Raw, Err: c.why[i]})
	}
	return out
}

// rows is what Config keeps of the member rows it could not read.
type rows struct {
	kept []jsonx.Kept
	why  []error
	path string // the file they were read from, for the report
}

func (c *Config) UnmarshalJSON(b []byte) error {
	err := c.unmarshal(b)
	c.lead = leadMemo{}
	if err == nil {
		lp, ok := c.leadProcess()
		c.lead = leadMemo{lp: lp, ok: ok, known: true}
	}
	return err
}

func (c *Config) unmarshal(b []byte) error {
	type plain Config
	c.rows = rows{}
	if c.unmarshalOnePass(b) {
		return nil
	}
	err := jsonx.Unmarshal(b, (*plain)(c), &c.extra)
	if err != nil {
		return c.unmarshalRows(b, err)
	}
	for i := range c.Members {
		c.Members[i].at = i + 1
	}
	return nil
}

// unmarshalOnePass decodes b with one pass of encoding/json, as
// UnmarshalJSON would for a file whose every member row decodes: the rows
// are decoded as plain fields, and each keeps its unknown keys from its
// own bytes, found by scanning (jsonx.MemberElements, jsonx.KeepDecoded). Through
// Member.UnmarshalJSON every row was checked and decoded a second time,
// nested inside the first pass, and every command reads its team: the
// one pass takes half the time for a team of 11 (about 3% of a send's
// instructions at that size, more with long prompts). It reports
// false, leaving c as it was, for a file that needs UnmarshalJSON's own
// path: a row that does not decode, members that are no array, a key
// given twice.
func (c *Config) unmarshalOnePass(b []byte) bool {
	type plain Config
	type plainMember Member
	cfg := *c
	loose := struct {
		*plain
		Members []plainMember `json:"members"`
	}{plain: (*plain)(&cfg)}
	if json.Unmarshal(b, &loose) != nil || jsonx.KeepDecoded(b, (*plain)(&cfg), &cfg.extra) != nil {
		return false
	}
	raws, ok := jsonx.MemberElements(b, "members")
	if !ok || len(raws) != len(loose.Members) {
		return false
	}
	cfg.Members = make([]Member, len(raws))
	for i, raw := range raws {
		m := (*plainMember)(&cfg.Members[i])
		*m = loose.Members[i]
		if jsonx.KeepDecoded(raw, m, &m.extra) != nil {
			return false
		}
		m.at = i + 1
	}
	*c = cfg
	return true
}

// unmarshalRows decodes b, which failed to decode as a whole with err,
// member row by member row; err stands unless every field but members
// decodes.
func (c *Config) unmarshalRows(b []byte, err error) error {
	type plain Config
	*c = Config{}
	loose := struct {
		*plain
		Members []json.RawMessage `json:"members"`
	}{plain: (*plain)(c)}
	if json.Unmarshal(b, &loose) != nil {
		// A row nested deeper than encoding/json reads is a row that does
		// not fit: JSON.parse, Claude Code's reader, takes it.
		rest, members, cerr := jsonx.CutMember(b, "members")
		if cerr != nil || json.Unmarshal(rest, &loose) != nil {
			return err
		}
		if loose.Members, cerr = jsonx.Elements(members); cerr != nil {
			return err
		}
	}
	c.Members = make([]Member, 0, len(loose.Members))
	for i, r := range loose.Members {
		var m Member
		if err := json.Unmarshal(r, &m); err != nil {
			c.kept = append(c.kept, jsonx.Kept{Index: i, Raw: r})
			c.why = append(c.why, err)
			continue
		}
		m.at = i + 1
		c.Members = append(c.Members, m)
	}
	return jsonx.Keep(b, (*plain)(c), &c.extra)
}

func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config
	if c.Members == nil {
		c.Members = []Member{}
	}
	if len(c.kept) == 0 {
		return jsonx.MarshalWith(plain(c), c.extra)
	}
	at := make([]int, len(c.Members))
	for i := range c.Members {
		at[i] = c.Members[i].at
	}
	var members []json.RawMessage
	for _, s := range jsonx.Interleave(at, c.kept) {
		if s.Kept && !json.Valid(c.kept[s.I].Raw) {
			// Read, but too deep for encoding/json to write back (the
			// only kept row that is not valid to it): refuse the change
			// rather than drop the row.
			return nil, fmt.Errorf("member row %d of %s is nested deeper than paneteam can write back; "+
				"remove that row to change the team (paneteam will not drop it itself)", c.kept[s.I].Index+1, c.path)
		}
		if s.Kept {
			members = append(members, c.kept[s.I].Raw)
			continue
		}
		b, err := jsonx.Marshal(c.Members[s.I])
		if err != nil {
			return nil, err
		}
		members = append(members, b)
	}
	p := plain(c)
	return jsonx.MarshalWith(struct {
		*plain
		Members []json.RawMessage `json:"members"`
	}{&p, members}, c.extra)
}
