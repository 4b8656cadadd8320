package shim

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Contract is the tmux calls one Claude Code release is known to make, as
// patterns (docs/CLAUDE-TMUX.md, a fenced block "contract <release>").
type Contract struct {
	Release  string
	Patterns []Pattern
}

// Pattern is one line of a contract.
type Pattern struct {
	Text string
	re   *regexp.Regexp
}

// sep joins a call's arguments for matching: no argument holds it.
const sep = "\x1f"

// placeholderRE is the expression a pattern's <name> stands for ("" for
// none); a switch, so that no start builds a map of them.
func placeholderRE(tok string) string {
	switch tok {
	case "<server>":
		return `(?:-S` + sep + `[^` + sep + `]+|-L` + sep + `claude-swarm-[0-9]+)`
	case "<pane>":
		return `%[0-9]+`
	case "<window>":
		return `(?:@[0-9]+|claude-swarm:swarm-view)`
	case "<percent>":
		return `[0-9]+%`
	case "<any>":
		return `[^` + sep + `]*`
	}
	return ""
}

// Compile reads one pattern line.
func Compile(line string) (Pattern, error) {
	var parts []string
	optional := false
	var opt []string
	for _, tok := range strings.Fields(line) {
		open := strings.HasPrefix(tok, "[")
		close := strings.HasSuffix(tok, "]")
		tok = strings.TrimSuffix(strings.TrimPrefix(tok, "["), "]")
		var re string
		switch {
		case placeholderRE(tok) != "":
			re = placeholderRE(tok)
		case strings.HasPrefix(tok, "(") && strings.HasSuffix(tok, ")"):
			var alts []string
			for _, a := range strings.Split(tok[1:len(tok)-1], "|") {
				alts = append(alts, regexp.QuoteMeta(a))
			}
			re = "(?:" + strings.Join(alts, "|") + ")"
		case strings.HasPrefix(tok, "<"):
			return Pattern{}, fmt.Errorf("pattern %q: unknown placeholder %s", line, tok)
		default:
			re = regexp.QuoteMeta(tok)
		}
		if open {
			optional = true
		}
		if optional {
			opt = append(opt, re)
		} else {
			parts = append(parts, re)
		}
		if close {
			if !optional || len(parts) == 0 {
				return Pattern{}, fmt.Errorf("pattern %q: ] without [", line)
			}
			// The group and the separator before it may both be absent.
			parts[len(parts)-1] += "(?:" + sep + strings.Join(opt, sep) + ")?"
			optional, opt = false, nil
		}
	}
	if optional || len(parts) == 0 {
		return Pattern{}, fmt.Errorf("pattern %q: empty or unclosed [", line)
	}
	re, err := regexp.Compile("^" + strings.Join(parts, sep) + "$")
	if err != nil {
		return Pattern{}, fmt.Errorf("pattern %q: %w", line, err)
	}
	return Pattern{Text: line, re: re}, nil
}

// Match reports whether argv (without the program name) is this call.
func (p Pattern) Match(argv []string) bool { return p.re.MatchString(strings.Join(argv, sep)) }

// Match returns the pattern argv matches, if any.
func (c Contract) Match(argv []string) (Pattern, bool) {
	for _, p := range c.Patterns {
		if p.Match(argv) {
			return p, true
		}
	}
	return Pattern{}, false
}

// ReadContracts reads every "contract <release> [<release>...]" block of
// a Markdown file: releases that make the same calls share one block, and
// each is one Contract.
func ReadContracts(r io.Reader) ([]Contract, error) {
	var out []Contract
	var releases []string // of the open block; nil outside one
	var patterns []Pattern
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case releases == nil && strings.HasPrefix(line, "```contract "):
			releases = strings.Fields(strings.TrimPrefix(line, "```contract "))
			patterns = nil
		case releases != nil && strings.HasPrefix(line, "```"):
			for _, rel := range releases {
				out = append(out, Contract{Release: rel, Patterns: patterns})
			}
			releases = nil
		case releases != nil && strings.TrimSpace(line) != "":
			p, err := Compile(line)
			if err != nil {
				return nil, err
			}
			patterns = append(patterns, p)
		}
	}
	if releases != nil {
		return nil, fmt.Errorf("contract %s: the block is not closed", strings.Join(releases, " "))
	}
	return out, sc.Err()
}
