// Package configdir says which folder holds the person's settings for
// paneteam: prices.json (internal/core/prices), their own agent
// profiles under agents/ (internal/agents/profile), claude.json, the
// agent CLIs 'paneteam claude' offers (internal/agents/router). One rule,
// so that the three never disagree on where a person's file is.
package configdir

import "path/filepath"

// Dir is paneteam's config folder: $XDG_CONFIG_HOME/paneteam when that
// is an absolute path (the XDG base directory rule ignores a relative
// one), else ~/.config/paneteam; "" when there is no home to put it in.
// getenv is the environment of the process paneteam acts for.
func Dir(getenv func(string) string) string {
	base := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "paneteam")
}
