package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// node is one KDL node: name, arguments, properties, children. Only what
// Zellij layouts for a single command pane need.
type node struct {
	name     string
	args     []string
	props    map[string]string
	children []*node
}

// parseKDL parses the subset of KDL (v1, which Zellij's layouts use) a
// layout with command panes needs: nodes, quoted strings with escapes,
// bare values (identifiers, numbers, true/false), properties, children,
// `;` and `//` comments.
func parseKDL(src string) ([]*node, error) {
	p := &kdlParser{s: []rune(src)}
	nodes, err := p.nodes(false)
	if err != nil {
		return nil, fmt.Errorf("layout: %w", err)
	}
	return nodes, nil
}

type kdlParser struct {
	s []rune
	i int
}

func (p *kdlParser) skipSpace(newlines bool) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '/':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '\n' || c == ';':
			if !newlines {
				return
			}
			p.i++
		case unicode.IsSpace(c):
			p.i++
		default:
			return
		}
	}
}

func (p *kdlParser) nodes(inBlock bool) ([]*node, error) {
	var out []*node
	for {
		p.skipSpace(true)
		if p.i >= len(p.s) {
			if inBlock {
				return nil, fmt.Errorf("missing }")
			}
			return out, nil
		}
		if p.s[p.i] == '}' {
			if !inBlock {
				return nil, fmt.Errorf("unexpected }")
			}
			p.i++
			return out, nil
		}
		n, err := p.node()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
}

func (p *kdlParser) node() (*node, error) {
	name, err := p.value()
	if err != nil {
		return nil, err
	}
	n := &node{name: name, props: map[string]string{}}
	for {
		p.skipSpace(false)
		if p.i >= len(p.s) || p.s[p.i] == '\n' || p.s[p.i] == ';' || p.s[p.i] == '}' {
			return n, nil
		}
		if p.s[p.i] == '{' {
			p.i++
			n.children, err = p.nodes(true)
			return n, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
			pv, err := p.value()
			if err != nil {
				return nil, err
			}
			n.props[v] = pv
			continue
		}
		n.args = append(n.args, v)
	}
}

func (p *kdlParser) value() (string, error) {
	if p.i >= len(p.s) {
		return "", fmt.Errorf("unexpected end")
	}
	if p.s[p.i] == '"' {
		return p.quoted()
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if unicode.IsSpace(c) || strings.ContainsRune("=;{}\"", c) {
			break
		}
		p.i++
	}
	if p.i == start {
		return "", fmt.Errorf("unexpected %q at %d", p.s[p.i], p.i)
	}
	return strings.TrimPrefix(string(p.s[start:p.i]), "#"), nil
}

func (p *kdlParser) quoted() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			if p.i >= len(p.s) {
				return "", fmt.Errorf("unterminated string")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteRune('\n')
			case 'r':
				b.WriteRune('\r')
			case 't':
				b.WriteRune('\t')
			case 'b':
				b.WriteRune('\b')
			case 'f':
				b.WriteRune('\f')
			case '\\', '"', '/':
				b.WriteRune(e)
			case 'u':
				end := strings.IndexRune(string(p.s[p.i:]), '}')
				if p.i >= len(p.s) || p.s[p.i] != '{' || end < 0 {
					return "", fmt.Errorf("bad \\u escape")
				}
				code, err := strconv.ParseUint(string(p.s[p.i+1:p.i+end]), 16, 32)
				if err != nil {
					return "", fmt.Errorf("bad \\u escape: %w", err)
				}
				b.WriteRune(rune(code))
				p.i += end + 1
			default:
				return "", fmt.Errorf("invalid escape \\%c", e)
			}
		default:
			b.WriteRune(c)
		}
	}
	return "", fmt.Errorf("unterminated string")
}
