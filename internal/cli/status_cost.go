package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/paneteam/paneteam/internal/core/cost"
	"github.com/paneteam/paneteam/internal/core/prices"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/sys/configdir"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// costReader reads members' spending with paneteam's state and config
// folders; nil when there is no state folder (nothing is read then).
func costReader(env Env, state string) *cost.Reader {
	if state == "" {
		return nil
	}
	return cost.NewReader(state, configdir.Dir(env.Getenv))
}

// tokensWord is a member's tokens for the TOKENS column: input, output,
// cache reads and cache writes, "?" when unknown, "-" for no model.
func tokensWord(c *cost.Cost) string {
	if c == nil {
		return "-" // no model: paneteam's lead, the person
	}
	if !c.Known() {
		return "?"
	}
	return fmt.Sprintf("%s/%s/%s/%s", tokenCount(*c.InputTokens), tokenCount(*c.OutputTokens), tokenCount(*c.CacheReadTokens), tokenCount(*c.CacheWriteTokens))
}

// usdWord is a cost for the COST column: "?" when unknown, "+" after a
// team's sum that leaves some member out.
func usdWord(c *cost.Cost) string {
	if c == nil {
		return "-"
	}
	if c.CostUSD == nil {
		return "?"
	}
	s := dollars(*c.CostUSD)
	if c.Partial {
		s += "+"
	}
	return s
}

func dollars(usd float64) string {
	if usd < 10 {
		return fmt.Sprintf("$%.2f", usd)
	}
	return fmt.Sprintf("$%.0f", usd)
}

// tokenCount is a token count short: 950, 12.3k, 4.1M.
func tokenCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1e6:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// spendingKnown reports whether paneteam knows what any member spent: its
// tokens, or a cost. When it knows none, status says nothing of spending
// beyond one short line (writeCostNotes); --json keeps each member's
// reason.
func spendingKnown(members []teamwatch.Member) bool {
	return slices.ContainsFunc(members, func(m teamwatch.Member) bool {
		return m.Usage != nil && (m.Usage.Known() || m.Usage.CostUSD != nil)
	})
}

// writeCostNotes says the team's total and why a member's spending or
// cost is unknown, under the members' table. When no member's spending
// is known it says nothing of it, or, when some member runs a model whose
// spending paneteam would have read (an agent CLI, Claude Code), one line
// naming them: a "?" line per plain command, whose spending paneteam
// never sees, was most of what a newcomer's first status showed.
func writeCostNotes(w io.Writer, total *cost.Cost, members []teamwatch.Member) {
	if total == nil {
		return
	}
	if !spendingKnown(members) {
		var models []string
		for _, m := range members {
			if m.Usage != nil && m.CLI != "" {
				models = append(models, visible.Line(m.Name))
			}
		}
		if len(models) > 0 {
			fmt.Fprintf(w, "  spent: not known for %s ('status --json' says why)\n", strings.Join(models, ", "))
		}
		for _, m := range members {
			writeReadNotes(w, m)
		}
		return
	}
	line := "  spent: " + usdWord(total)
	if total.Known() {
		line += " (tokens in/out/cache read/cache write: " + tokensWord(total) + ")"
	}
	if total.Partial {
		line += "; + leaves out what is unknown"
	}
	fmt.Fprintln(w, line)
	for _, m := range members {
		c := m.Usage
		switch {
		case c == nil:
		case !c.Known():
			fmt.Fprintf(w, "  ? %s: %s\n", visible.Line(m.Name), visible.Line(c.Unknown))
		case c.CostUSD == nil:
			fmt.Fprintf(w, "  ? %s: no price for %s (add it to %s)\n", visible.Line(m.Name),
				visible.Line(strings.Join(c.Unpriced, ", ")), prices.OverrideFile)
		}
		writeReadNotes(w, m)
	}
}

// writeReadNotes warns that m's usage records were read only in part.
func writeReadNotes(w io.Writer, m teamwatch.Member) {
	c := m.Usage
	if c != nil && c.Unreadable > 0 {
		fmt.Fprintf(w, "  ! %s: %d unreadable line(s) in its usage records, not counted\n", visible.Line(m.Name), c.Unreadable)
	}
	if c != nil && c.Behind {
		fmt.Fprintf(w, "  ! %s: its usage records are still being read; counted so far\n", visible.Line(m.Name))
	}
}

// writeEnded prints the spending kept of teams cleaned up.
func writeEnded(env Env, o statusOptions) error {
	state, err := env.stateDir()
	if err != nil {
		return err
	}
	ended, err := cost.EndedTeams(state)
	if err != nil {
		return fmt.Errorf("read the spending of ended teams: %w", err)
	}
	if o.Scope.Team != "" {
		ended = slices.DeleteFunc(ended, func(e cost.Ended) bool { return e.Team != o.Scope.Team })
	}
	if o.JSON {
		if ended == nil {
			ended = []cost.Ended{}
		}
		return printJSON(env.Stdout, ended)
	}
	if len(ended) == 0 {
		fmt.Fprintln(env.Stdout, "no ended team's spending kept: a team's is kept when 'paneteam cleanup' deletes it")
		return nil
	}
	for i, e := range ended {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		fmt.Fprintf(env.Stdout, "%s (ended %s): %s\n", visible.Line(e.Team), e.Ended, usdWord(&e.Usage))
		tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NAME\tTOKENS\tCOST\tMODELS")
		for _, n := range slices.Sorted(maps.Keys(e.Members)) {
			c := e.Members[n]
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", visible.Line(n), tokensWord(&c), usdWord(&c), visible.Line(strings.Join(c.Models, ", ")))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
