package team

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Colors are given to teammates in this order (Claude Code's palette),
// each to one member before any is given twice (NextColor); stored by
// these names.
var Colors = []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}

// TmuxColor maps a team colour to the tmux colour drawn for it.
func TmuxColor(c string) string {
	switch c {
	case "purple":
		return "magenta"
	case "orange":
		return "colour208"
	case "pink":
		return "colour205"
	}
	return c
}

// ValidColor reports whether c is one of Colors.
func ValidColor(c string) bool {
	for _, k := range Colors {
		if k == c {
			return true
		}
	}
	return false
}

// UniqueName returns name, or name-2, name-3, ... so that no member has it
// already (names compare case-insensitively).
func (c *Config) UniqueName(name string) string {
	if c.Member(name) == nil {
		return name
	}
	for n := 2; ; n++ {
		cand := name + "-" + strconv.Itoa(n)
		if c.Member(cand) == nil {
			return cand
		}
	}
}

// NextColor is the colour for a new member: the first in Colors (Claude
// Code's palette order, docs/PROTOCOL.md §2) that no member has yet,
// counting every row of config.json (Claude Code's own teammates too, so
// a paneteam member never wears the colour Claude gave one of its own).
// When every colour is taken, the palette goes round again: the first of
// those fewest members have.
func (c *Config) NextColor() string {
	uses := map[string]int{}
	for _, m := range c.Members {
		uses[strings.ToLower(strings.TrimSpace(m.Color))]++
	}
	next := Colors[0]
	for _, k := range Colors {
		if uses[k] < uses[next] {
			next = k
		}
	}
	return next
}

// AddMember appends m after making its name unique and giving it a colour
// when it has none, and the moment it joined when JoinedAt is zero. It
// returns the stored member.
func (c *Config) AddMember(m Member) (*Member, error) {
	if err := CheckName("member", m.Name); err != nil {
		return nil, err
	}
	m.Name = c.UniqueName(MemberName(m.Name))
	if m.Color == "" {
		m.Color = c.NextColor()
	} else if !ValidColor(m.Color) {
		return nil, fmt.Errorf("colour %q is not a team colour: use one of %s", m.Color, strings.Join(Colors, ", "))
	}
	m.AgentID, m.at = AgentID(m.Name, c.Name), 0
	if m.JoinedAt == 0 {
		// Claude Code reads joinedAt as when the member joined; a row
		// of 0 says 1970 to it and to status.
		m.JoinedAt = time.Now().UnixMilli()
	}
	c.Members = append(c.Members, m)
	return &c.Members[len(c.Members)-1], nil
}
