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
	if err := c.checkClash(m.Name); err != nil {
		return nil, err
	}
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

// checkClash refuses a new member's name that is the lead's, or another
// member's, in one of the forms names are compared in (SameName): rows in
// config.json are written by others too (Claude Code, a teammate), and
// two members behind one inbox file would read each other's messages.
// UniqueName has already moved the name off an exact match.
func (c *Config) checkClash(name string) error {
	for _, lead := range []string{LeadName, c.LeadAgentName()} {
		if f := sharedForm(name, lead); f != "" {
			return &NameClashError{Name: name, Other: lead, Form: f, Lead: true}
		}
	}
	for _, o := range c.Members {
		if f := sharedForm(o.Name, name); f != "" {
			return &NameClashError{Name: name, Other: o.Name, Form: f}
		}
	}
	return nil
}

// NameClashError is a new member's name that is, in another spelling,
// the lead's or a member's already.
type NameClashError struct {
	Name, Other string
	Form        string // what both read as: a normalised name or an inbox file's
	Lead        bool   // Other is the team's lead
}

func (e *NameClashError) Error() string {
	who := fmt.Sprintf("member %q", e.Other)
	if e.Lead {
		who = fmt.Sprintf("the team's lead (%q)", e.Other)
	}
	return fmt.Sprintf("member name %q is %s in another spelling (both read as %q, one name to Claude Code or one inbox file): "+
		"choose another name, such as %q", e.Name, who, e.Form, e.Name+"-2")
}
