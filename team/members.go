package team

import (
	"fmt"
	"strconv"
	"strings"
)

// Colors are assigned to teammates round-robin, stored by these names.
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

// NextColor is the next colour round-robin: the count of teammates (lead
// excluded) so far picks it.
func (c *Config) NextColor() string {
	n := 0
	for _, m := range c.Members {
		if m.Name != LeadName {
			n++
		}
	}
	return Colors[n%len(Colors)]
}

// AddMember appends m after making its name unique and giving it a colour
// when it has none. It returns the stored member.
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
	m.AgentID = AgentID(m.Name, c.Name)
	c.Members = append(c.Members, m)
	return &c.Members[len(c.Members)-1], nil
}
