package prices

import (
	"regexp"
	"strings"
	"sync"
)

// regexps are the table's patterns compiled, each once: a func(string)
// bool, nil for one Go cannot read.
var regexps sync.Map

// compiled reads a JavaScript pattern. Go's regexp has no lookahead; the
// table uses one only as a pattern's start, "^(?!X)REST": not ^X, and
// ^REST.
func compiled(pattern string) func(string) bool {
	if f, ok := regexps.Load(pattern); ok {
		return f.(func(string) bool)
	}
	f := compile(pattern)
	regexps.Store(pattern, f)
	return f
}

func compile(pattern string) func(string) bool {
	if rest, ok := strings.CutPrefix(pattern, "^(?!"); ok {
		end := closing(rest)
		if end < 0 {
			return nil
		}
		not, err1 := regexp.Compile("^(?:" + rest[:end] + ")")
		yes, err2 := regexp.Compile("^" + rest[end+1:])
		if err1 != nil || err2 != nil {
			return nil
		}
		return func(s string) bool { return !not.MatchString(s) && yes.MatchString(s) }
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil
	}
	return re.MatchString
}

// closing is the index of the parenthesis closing an open one before s,
// or -1.
func closing(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// match is genai-prices' rule for a name (MatchLogic): one of its keys,
// case-insensitive but for a regex.
type match struct {
	Or         []match `json:"or"`
	And        []match `json:"and"`
	Equals     *string `json:"equals"`
	StartsWith *string `json:"starts_with"`
	EndsWith   *string `json:"ends_with"`
	Contains   *string `json:"contains"`
	Regex      *string `json:"regex"`
}

func (m *match) matches(name string) bool {
	lower := func(s *string) string { return strings.ToLower(*s) }
	switch {
	case m.Or != nil:
		for i := range m.Or {
			if m.Or[i].matches(name) {
				return true
			}
		}
		return false
	case m.And != nil:
		for i := range m.And {
			if !m.And[i].matches(name) {
				return false
			}
		}
		return true
	case m.Equals != nil:
		return name == lower(m.Equals)
	case m.StartsWith != nil:
		return strings.HasPrefix(name, lower(m.StartsWith))
	case m.EndsWith != nil:
		return strings.HasSuffix(name, lower(m.EndsWith))
	case m.Contains != nil:
		return strings.Contains(name, lower(m.Contains))
	case m.Regex != nil:
		// A JavaScript pattern Go's regexp cannot read matches nothing:
		// no price rather than the wrong one.
		f := compiled(*m.Regex)
		return f != nil && f(name)
	}
	return false
}
