// Package docs holds documents paneteam also reads at run time: the
// tmux-call contract of each tested Claude Code release, which
// 'paneteam claude --check' compares a release's calls with.
package docs

import _ "embed"

// ClaudeTmux is CLAUDE-TMUX.md.
//
//go:embed CLAUDE-TMUX.md
var ClaudeTmux string
