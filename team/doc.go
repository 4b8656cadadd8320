// Package team is a Go library for Claude Code's team files: a team's
// config.json (its members, who leads it and whether that lead still
// lives), team and member names made safe the way Claude Code makes them,
// and the shared task list (one JSON file per task, with owners and
// dependencies). Every change to a shared file takes Claude Code's own
// lock (package lockfile) and is written atomically, so a program built on
// this package can work beside a running Claude Code.
//
// The file formats and the lock are described in docs/PROTOCOL.md.
package team
