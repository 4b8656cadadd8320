package cli

import (
	"encoding/json"
	"io"
)

// printJSON writes v as indented JSON with a trailing newline, for scripts.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
