package tmux

import (
	"fmt"
	"strings"
)

// The tmux status line runs `paneteam status --format tmux` as a new
// process every few seconds, and asking the server for its panes costs a
// tmux client of its own: about as much CPU as the rest of the status
// line. tmux expands formats in a #(command) before it runs it, so the
// status line can hand paneteam the panes of its own server instead, in
// the argument of --panes; paneteam then asks tmux nothing about that
// server.

// StatusPanesFormat is what a status line passes to --panes: every pane
// of the server that runs it (#{S:} over sessions, #{W:} over windows,
// #{P:} over panes), each as "<id>:<dead>:<agent>" and a space, the agent
// id (AgentOption) kept to the characters of SafeAgent. The expanded
// text reaches sh, inside single quotes: a pane id is %N, pane_dead 0 or
// 1, and the filter leaves no quote, space or other character sh or the
// list would read. It holds no comma, which a loop would read as the
// start of the format of its current item.
const StatusPanesFormat = "#{S:#{W:#{P:#{pane_id}:#{pane_dead}:#{s/[^A-Za-z0-9@._-]//:" + AgentOption + "} }}}"

// SafeAgent is an agent id as StatusPanesFormat passes it: only ASCII
// letters, digits and @ . _ - are kept.
func SafeAgent(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '@', r == '.', r == '_', r == '-':
			return r
		}
		return -1
	}, s)
}

// ParseStatusPanes reads an expanded StatusPanesFormat: the panes by id,
// each with ID, Dead and Agent (as SafeAgent has it) set. A pane listed
// twice (a window linked into two sessions) is one pane.
func ParseStatusPanes(s string) (map[string]Pane, error) {
	panes := map[string]Pane{}
	for _, f := range strings.Fields(s) {
		id, rest, ok := strings.Cut(f, ":")
		dead, agent, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || len(id) < 2 || id[0] != '%' || strings.Trim(id[1:], "0123456789") != "" || (dead != "0" && dead != "1") {
			return nil, fmt.Errorf("%q is not a pane as %s lists it (%%N:0|1:agent)", f, "--panes")
		}
		panes[id] = Pane{ID: id, Dead: dead == "1", Agent: agent}
	}
	return panes, nil
}
