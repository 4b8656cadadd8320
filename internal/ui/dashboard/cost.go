package dashboard

import (
	"fmt"

	"github.com/paneteam/paneteam/internal/core/cost"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// usd is a cost as the dashboard shows it: "$0.42", "$0.42+" for a sum
// leaving some member out, "$?" when unknown (the detail says why).
func usd(c *cost.Cost) string {
	if c.CostUSD == nil {
		return "$?"
	}
	s := fmt.Sprintf("$%.2f", *c.CostUSD)
	if c.Partial {
		s += "+"
	}
	return s
}

// tokens are a member's tokens: in, out, cache read, cache write, or why
// they are unknown.
func tokens(c *cost.Cost) string {
	if !c.Known() {
		return "unknown: " + visible.Line(c.Unknown)
	}
	return fmt.Sprintf("%d in, %d out, %d cache read, %d cache write", *c.InputTokens, *c.OutputTokens, *c.CacheReadTokens, *c.CacheWriteTokens)
}

func oneOf(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}
