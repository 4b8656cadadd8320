// Package router puts paneteam under every pane teammate Claude Code's
// lead starts ('paneteam claude'). Claude Code runs the program its
// CLAUDE_CODE_TEAMMATE_COMMAND names, with its own teammate flags after
// it; paneteam names a link to itself there, and the router decides, by
// the Agent tool's subagent_type (--agent-type), whether the teammate is
// an agent CLI paneteam offered the lead (Codex, Gemini CLI, OpenCode, a
// person's own profile) or Claude Code, run as before.
//
// The link lives in paneteam's state folder, one folder per setup
// (binary, Claude, offered CLIs), with router.json beside it: Claude
// Code passes its teammates few variables of its own, so the program's
// path is how the router finds what 'paneteam claude' decided.
package router

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/sys/private"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// LinkName is the router's program: a link to the paneteam binary that
// cmd/paneteam recognises by this name.
const LinkName = "paneteam-teammate"

// EnvTeammateCommand is Claude Code's variable naming its pane
// teammates' program.
const EnvTeammateCommand = "CLAUDE_CODE_TEAMMATE_COMMAND"

// Config is what the router is told by 'paneteam claude'.
type Config struct {
	// Claude is the program a teammate of any type not offered runs:
	// the exact Claude binary 'paneteam claude' started, or the person's
	// own CLAUDE_CODE_TEAMMATE_COMMAND.
	Claude string `json:"claude"`
	// Offered are the agent types that run an agent CLI, by profile name.
	Offered []string `json:"offered"`
	// Exe is the paneteam binary the link points to.
	Exe string `json:"exe"`
	// Worktree gives every teammate a git worktree of its own
	// ('paneteam claude --worktree').
	Worktree bool `json:"worktree,omitempty"`
	// Resumed: the lead was started with --resume or --continue. A
	// Claude teammate it starts under the name of one of its earlier
	// teammates goes on with that teammate's conversation (Resume).
	Resumed bool `json:"resumed,omitempty"`
	// Budget, above 0, is every teammate's spending limit in dollars
	// ('paneteam claude --budget'): the router holds each to it.
	Budget float64 `json:"budget,omitempty"`
}

// StateDir is paneteam's state folder the link lives in
// (<state>/router/<hash>/paneteam-teammate): the pane gets none of
// paneteam's variables, so this is where the router finds it.
func StateDir(link string) string { return filepath.Dir(filepath.Dir(filepath.Dir(link))) }

// Routes reports whether agentType runs an agent CLI.
func (c Config) Routes(agentType string) bool {
	return agentType != "" && slices.Contains(c.Offered, agentType)
}

// Install writes c under state and returns the router's program (the
// link) to give Claude Code. Equal setups share a folder, so a person's
// many leads do not pile folders up.
func Install(state string, c Config) (string, error) {
	if c.Exe == "" || c.Claude == "" {
		return "", errors.New("the teammate router needs the paneteam binary and the Claude to run")
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	dir := filepath.Join(state, "router", fmt.Sprintf("%x", sum[:6]))
	if err := os.MkdirAll(dir, lockfile.DirPerm); err != nil {
		return "", fmt.Errorf("make the teammate router's folder: %w", err)
	}
	if err := safefs.Dir(dir); err != nil {
		return "", fmt.Errorf("the teammate router's folder: %w", err)
	}
	if err := lockfile.WriteAtomic(filepath.Join(dir, "router.json"), append(b, '\n')); err != nil {
		return "", fmt.Errorf("write the teammate router's setup: %w", err)
	}
	link := filepath.Join(dir, LinkName)
	if cur, err := os.Readlink(link); err == nil && cur == c.Exe {
		return link, nil
	}
	tmp := fmt.Sprintf("%s.%d.tmp", link, os.Getpid())
	os.Remove(tmp)
	if err := os.Symlink(c.Exe, tmp); err != nil {
		return "", fmt.Errorf("link paneteam as the teammate router: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("link paneteam as the teammate router: %w", err)
	}
	return link, nil
}

// Load reads the setup beside the router's program link (argv[0] as
// Claude Code ran it). The link must be an absolute path in a folder
// 'paneteam claude' made: <state>/router/<hash>, a real folder of this
// user's that nobody else can write. A program named paneteam-teammate
// run any other way (found on PATH, from a project's folder) would
// otherwise run whatever a router.json beside it names.
func Load(link string) (Config, error) {
	dir := filepath.Dir(link)
	if !filepath.IsAbs(link) || filepath.Base(filepath.Dir(dir)) != "router" {
		return Config{}, fmt.Errorf("%s is not paneteam's teammate router: 'paneteam claude' gives Claude Code the router's full path in its state folder; run the lead through it", link)
	}
	if err := private.Dir(dir); err != nil {
		return Config{}, fmt.Errorf("the teammate router's folder %s: %w (run 'paneteam claude' again)", dir, err)
	}
	path := filepath.Join(dir, "router.json")
	b, err := safefs.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read the teammate router's setup (run 'paneteam claude' again): %w", err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("the teammate router's setup %s: %w (run 'paneteam claude' again)", path, err)
	}
	if c.Claude == "" {
		return Config{}, fmt.Errorf("the teammate router's setup %s names no Claude to run (run 'paneteam claude' again)", path)
	}
	return c, nil
}

// IsRouter reports whether argv0 is the router's program.
func IsRouter(argv0 string) bool { return filepath.Base(argv0) == LinkName }

// ClaudeArgs are the arguments a Claude teammate runs with, and the
// session id it runs as ("" when unknown): Claude's own arguments, plus a
// session id of the router's when Claude gave none, so that its
// transcript is found by that id. A resumed session (--resume ID) keeps
// its id; a fork of one (--fork-session) gets the router's; --continue
// without a fork resumes a session the router cannot name.
func ClaudeArgs(args []string, newID func() string) ([]string, string) {
	f := spawn.ReadSessionFlags(args, func(name string) bool { return slices.Contains(valueFlags, name) })
	switch {
	case f.ID != "":
		return args, f.ID
	case f.Resuming && !f.Fork:
		return args, f.Resumed
	}
	id := newID()
	return append(slices.Clone(args), "--session-id", id), id
}
