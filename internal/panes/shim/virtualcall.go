package shim

import (
	"context"
	"fmt"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"strings"
	"sync"
)

// inVirtual reports whether this shim serves a virtual server.
func (s *Shim) inVirtual() bool {
	return s.Getenv(virtualtmux.EnvTerminal) != "" && s.Getenv(virtualtmux.EnvState) != "" && s.Getenv(EnvDir) != ""
}

// virtualAddressed reports whether c is for the virtual server: sent to
// its socket, or sent with no server named by a process whose $TMUX is
// the virtual server (Claude's screen probes).
func (s *Shim) virtualAddressed(c Call) bool {
	sock := virtualtmux.Socket(s.Getenv(virtualtmux.EnvState))
	if c.Socket != "" || c.Name != "" {
		return c.Socket == sock
	}
	if c.Version {
		return false
	}
	first, _, _ := strings.Cut(s.Getenv("TMUX"), ",")
	return first == sock && isProbe(c)
}

// isProbe reports whether c is one of the screen probes every Claude
// process makes of the tmux it runs in.
func isProbe(c Call) bool {
	switch c.Cmd {
	case "show-options":
		return c.Has('g') && c.Has('v') && len(c.Args) == 1
	case "display-message":
		return c.Has('p') && len(c.Args) == 1
	}
	return false
}

// serveVirtual answers c as the virtual server.
func (s *Shim) serveVirtual(ctx context.Context, c Call) int {
	v := &virtual{s: s, dir: s.Getenv(virtualtmux.EnvState)}
	if c.Socket == "" {
		return v.probe(c) // virtualAddressed let only the probes through
	}
	if why := check(c); why != "" {
		return s.unknown(why)
	}
	unlock, err := v.lock(ctx)
	if err != nil {
		return s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	v.unlock = sync.OnceFunc(unlock)
	defer v.unlock()
	if v.st, err = virtualtmux.Read(v.dir); err != nil {
		return s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	switch c.Cmd {
	case "display-message":
		return v.display(c)
	case "list-panes":
		return v.listPanes(c)
	case "split-window":
		return v.split(ctx, c)
	case "respawn-pane":
		return v.respawn(c)
	case "kill-pane":
		return v.kill(ctx, c)
	case "select-pane":
		if p := v.pane(c.Flag('t')); p != nil && c.Has('T') {
			p.Title = c.Flag('T')
			return v.title(ctx, *p)
		}
		return v.paneOr(c.Flag('t'))
	case "set-option", "resize-pane":
		// Colours, borders and widths are tmux's drawing; the terminal
		// draws its own.
		return v.paneOr(c.Flag('t'))
	case "select-layout":
		return v.arrange(ctx)
	}
	return s.unknown(fmt.Sprintf("%s is not a call paneteam's tmux for %s answers", c.Cmd, v.st.Terminal))
}

// values are what the virtual server answers for a format's variables.
func (v *virtual) values(pane string) map[string]string {
	return map[string]string{
		"session_name": "paneteam", "window_id": "@0", "window_index": "0", "window_name": "paneteam",
		"pane_id": pane, "pane_index": strings.TrimPrefix(pane, "%"),
		"client_termtype": "", "client_control_mode": "0", "allow-passthrough": "0",
		"focus-events": "0", "pane_top": "0", "pane_left": "0",
		"status": "off", "status-position": "bottom", "window_bigger": "0",
	}
}

// expand fills a tmux format: #{name} by its value ("" for a name the
// virtual server does not know), ## is #.
func expand(format string, vals map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] == '#' && i+1 < len(format) {
			switch format[i+1] {
			case '{':
				if end := strings.IndexByte(format[i:], '}'); end > 0 {
					b.WriteString(vals[format[i+2:i+end]])
					i += end
					continue
				}
			case '#':
				b.WriteByte('#')
				i++
				continue
			}
		}
		b.WriteByte(format[i])
	}
	return b.String()
}

// probe answers a screen probe: focus events are off, and the pane is
// drawn straight to the terminal (no passthrough, no status line).
func (v *virtual) probe(c Call) int {
	if c.Cmd == "show-options" {
		if c.Args[0] == "focus-events" {
			return v.s.finish("off\n", "", 0)
		}
		return v.s.finish("", fmt.Sprintf("invalid option: %s\n", c.Args[0]), 1)
	}
	pane := c.Flag('t')
	if pane == "" {
		pane = v.s.Getenv("TMUX_PANE")
	}
	return v.s.finish(expand(c.Args[0], v.values(pane))+"\n", "", 0)
}

// display answers display-message -p on the server's panes.
func (v *virtual) display(c Call) int {
	pane := c.Flag('t')
	if pane != "%0" && v.pane(pane) == nil {
		return v.s.finish("", fmt.Sprintf("can't find pane: %s\n", pane), 1)
	}
	f := c.Flag('F')
	if len(c.Args) == 1 {
		f = c.Args[0]
	}
	return v.s.finish(expand(f, v.values(pane))+"\n", "", 0)
}

// listPanes lists the lead's window: the lead's pane, then the panes
// split beside it (panes in tabs of their own are in other windows).
func (v *virtual) listPanes(c Call) int {
	if t := c.Flag('t'); t != "@0" && t != "%0" && t != "" && v.pane(t) == nil {
		return v.s.finish("", fmt.Sprintf("can't find window: %s\n", t), 1)
	}
	if v.prune() {
		v.write() // the listing is right either way; the next call prunes again
	}
	f := c.Flag('F')
	if f == "" {
		f = "#{pane_index}: #{pane_id}"
	}
	out := expand(f, v.values("%0")) + "\n"
	for _, p := range v.st.Panes {
		if !p.Tab {
			out += expand(f, v.values(p.ID)) + "\n"
		}
	}
	return v.s.finish(out, "", 0)
}
