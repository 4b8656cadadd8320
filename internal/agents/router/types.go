package router

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/paneteam/paneteam/internal/agents/profile"
)

// Definition is one agent type for Claude Code's --agents.
type Definition struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}

// Definitions are the agent types offering profiles to Claude's lead.
// Called as a teammate (Agent with a name) such a type runs the CLI;
// called without a name, or where Claude Code hosts teammates in its own
// process, it is a Claude subagent whose definition makes it say that it
// is not that CLI, and stop.
func Definitions(profiles []*profile.Profile) map[string]Definition {
	out := map[string]Definition{}
	for _, p := range profiles {
		desc := p.Description
		if desc == "" {
			desc = fmt.Sprintf("%s, run as a teammate in a pane of its own. Works only as a teammate: call Agent with a name and this subagent_type.", p.Title)
		}
		out[p.Name] = Definition{Description: desc, Prompt: standIn(p)}
	}
	return out
}

// standIn is the system prompt of the type run as a Claude subagent.
func standIn(p *profile.Profile) string {
	return fmt.Sprintf("You are not %[1]s. The agent type %[2]q starts %[1]s only as a teammate in a pane of its own, "+
		"when the Agent tool is called with a name; you were started without one (or in a session whose teammates run inside it), "+
		"so you are a Claude subagent standing in. Do not do the task and do not pretend to be %[1]s. "+
		"Reply with exactly this and stop: \"I am not %[1]s: the %[2]s agent type runs %[1]s only as a teammate. "+
		"Call Agent again with a name and subagent_type %[2]q to start %[1]s in its own pane.\"", p.Title, p.Name)
}

// MergeAgents returns the --agents value carrying defs and the person's
// own (their value, a JSON object, or "" for none), and the names of
// defs it carries: a type of theirs of the same name wins, and is named
// in the notes.
func MergeAgents(theirs string, defs map[string]Definition) (value string, added, notes []string, err error) {
	all := map[string]json.RawMessage{}
	if strings.TrimSpace(theirs) != "" {
		if err := json.Unmarshal([]byte(theirs), &all); err != nil {
			return "", nil, nil, fmt.Errorf("--agents %q is not a JSON object of agent types: give it inline, or leave it out ('paneteam claude' adds the CLIs' types to it)", theirs)
		}
	}
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := all[n]; ok {
			notes = append(notes, fmt.Sprintf("your --agents defines %q: the lead gets yours, and no %s teammate", n, n))
			continue
		}
		b, err := json.Marshal(defs[n])
		if err != nil {
			return "", nil, nil, err
		}
		all[n] = b
		added = append(added, n)
	}
	b, err := json.Marshal(all)
	return string(b), added, notes, err
}
