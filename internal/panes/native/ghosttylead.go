package native

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/program"
)

// ghosttyLeadFile, in the driver's folder, keeps the lead's terminal id
// once found, with what it was found for (the lead's tty and folder): on
// a Ghostty without tty the focused terminal is the lead's only at the
// start, and Ghostty focuses each new split.
const ghosttyLeadFile = "ghostty-lead"

// leadID finds the lead's terminal: by its tty where Ghostty reports one
// (after 1.3.1); else the one found before, if it is still there; else
// the front window's selected tab's focused terminal, taken only when
// its working directory is the lead's folder.
func (g *ghostty) leadID(ctx context.Context) (string, error) {
	g.mu.Lock()
	lead := g.lead
	g.mu.Unlock()
	if lead != "" {
		return lead, nil
	}
	ts, err := g.terminals(ctx)
	if err != nil {
		return "", err
	}
	if len(ts) == 0 {
		if _, err := g.run(ctx, "check that AppleScript is on", ghosttyEnabledScript); err != nil {
			return "", err
		}
		return "", fmt.Errorf("Ghostty lists no terminals: start paneteam from a Ghostty terminal")
	}
	tty := ghosttyOwnTTY(ctx)
	cwd := leadFolder()
	key := tty + "\n" + cwd
	chose := ""
	if ts[0].TTY != "" {
		lead, err = ghosttyByTTY(ts, tty)
	} else {
		lead, err = g.byFocus(ctx, ts, key, cwd)
		chose = fmt.Sprintf("Ghostty terminal %s, the focused terminal of the front window (in %s), is taken for the lead's, since this Ghostty reports no tty: if it is not the one paneteam runs in, quit Claude, click into that terminal and start again", lead, cwd)
	}
	if err != nil {
		return "", err
	}
	g.mu.Lock()
	g.lead, g.chose = lead, chose
	g.mu.Unlock()
	// Kept for the next call (a later tmux command of Claude's is
	// another process); a write that fails costs only a new look.
	_ = os.WriteFile(filepath.Join(g.dir, ghosttyLeadFile), []byte(lead+"\n"+key+"\n"), 0o600)
	return lead, nil
}

// LeadChooser is a driver that may have guessed which pane is the
// lead's, where the terminal does not say: the person should hear the
// choice before Claude takes the screen.
type LeadChooser interface {
	// LeadChoice says which pane the driver took for the lead's and
	// why, "" when the terminal itself named it (or none was looked
	// for yet: it is known after Probe).
	LeadChoice() string
}

// LeadChoice is the focused terminal taken for the lead's on a Ghostty
// whose terminals report no tty.
func (g *ghostty) LeadChoice() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.chose
}

// ghosttyByTTY is the terminal whose tty is tty.
func ghosttyByTTY(ts []ghosttyTerminal, tty string) (string, error) {
	if tty == "" {
		return "", fmt.Errorf("paneteam has no terminal of its own (no controlling tty), so it cannot tell which Ghostty terminal is the lead's: start paneteam from a Ghostty terminal")
	}
	var found []string
	for _, t := range ts {
		if strings.TrimPrefix(t.TTY, "/dev/") == tty {
			found = append(found, t.ID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("no Ghostty terminal has this tty (/dev/%s): paneteam runs in another terminal app, or over ssh; start it from a Ghostty terminal on this Mac", tty)
	}
	return "", fmt.Errorf("%d Ghostty terminals report the tty /dev/%s: cannot tell which is the lead's", len(found), tty)
}

// byFocus is the lead's terminal on a Ghostty that reports no tty.
func (g *ghostty) byFocus(ctx context.Context, ts []ghosttyTerminal, key, cwd string) (string, error) {
	if b, err := os.ReadFile(filepath.Join(g.dir, ghosttyLeadFile)); err == nil {
		id, k, _ := strings.Cut(string(b), "\n")
		if strings.TrimSuffix(k, "\n") == key {
			for _, t := range ts {
				if t.ID == id {
					return id, nil
				}
			}
		}
	}
	out, err := g.run(ctx, "read the focused terminal", ghosttyFrontScript)
	if err != nil {
		return "", err
	}
	id, wd, ok := strings.Cut(out, ghosttyFieldSep)
	if !ok || !ghosttyValidID(id) {
		return "", fmt.Errorf("Ghostty answered %q for the focused terminal, not a terminal id and its folder", out)
	}
	const fix = "this Ghostty reports no tty, so paneteam takes the focused terminal of the front window for the lead's; click into the terminal paneteam runs in and try again, update Ghostty to a release whose terminals report their tty, or run tmux inside Ghostty"
	if wd == "" {
		return "", fmt.Errorf("the focused Ghostty terminal (%s) reports no working directory (Ghostty's shell integration reports it), so paneteam cannot check it is the lead's: %s", id, fix)
	}
	if !sameFolder(wd, cwd) {
		return "", fmt.Errorf("the focused Ghostty terminal (%s) is in %s, not in the lead's folder %s, so it may not be the lead's: %s", id, wd, cwd, fix)
	}
	return id, nil
}

// ghosttyOwnTTY is ownTTY (a test names a pane's terminal instead).
var ghosttyOwnTTY = ownTTY

// ownTTY is the name of this process's controlling terminal as ps(1)
// prints it without /dev/ ("ttys016" on macOS, "pts/3" on Linux), or ""
// with none: the shim runs in a child of Claude, whose standard streams
// are pipes, but it keeps the lead's controlling terminal.
func ownTTY(ctx context.Context) string {
	ps, err := program.Find("ps", "/bin:/usr/bin")
	if err != nil {
		return ""
	}
	out, err := program.Output(ctx, program.Cmd{Path: ps, Name: "ps", Args: []string{"-o", "tty=", "-p", strconv.Itoa(os.Getpid())}, DefaultTimeout: ghosttyCallTimeout})
	if err != nil {
		return ""
	}
	t := strings.TrimPrefix(strings.TrimSpace(out), "/dev/")
	if t == "" || strings.Trim(t, "?") == "" {
		return ""
	}
	return t
}

// leadFolder is the folder the lead runs in, symlinks resolved.
func leadFolder() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		return r
	}
	return wd
}

// sameFolder says whether two paths name one folder.
func sameFolder(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		a = r
	}
	if r, err := filepath.EvalSymlinks(b); err == nil {
		b = r
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
