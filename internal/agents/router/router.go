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
	"strings"

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
// Claude Code ran it).
func Load(link string) (Config, error) {
	path := filepath.Join(filepath.Dir(link), "router.json")
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

// ClaudeArgs are the arguments a Claude teammate runs with: Claude's
// own, plus a session id of the router's when Claude gave none (and is
// not resuming one), so that its transcript is found by that id.
func ClaudeArgs(args []string, newID func() string) ([]string, string) {
	for i, a := range args {
		name, v, inline := strings.Cut(a, "=")
		switch name {
		case "--session-id":
			if inline {
				return args, v
			}
			if i+1 < len(args) {
				return args, args[i+1]
			}
			return args, ""
		case "--resume", "-r", "--continue", "-c":
			return args, ""
		}
	}
	id := newID()
	return append(slices.Clone(args), "--session-id", id), id
}
