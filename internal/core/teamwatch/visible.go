package teamwatch

import "github.com/paneteam/paneteam/internal/protocol/approval"

// Visible returns s with every character that a terminal would act on
// instead of print made visible as an escape (approval.Visible: one rule
// for every place teammate text reaches a person's terminal). Names,
// summaries and texts come from teammates; a person reads them, a terminal
// must never interpret them.
func Visible(s string) string { return approval.Visible(s) }
