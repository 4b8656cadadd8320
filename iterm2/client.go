// Package iterm2 is paneteam's client of the it2 program, iTerm2's command
// line: list, split, run in, name, read, type into and close sessions. Both it2 flavours are
// understood (the Python one from PyPI and the Swift one shipped with
// iTerm2 3.7); their differing error texts map to the sentinel errors of
// errors.go.
package iterm2

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
)

// Client runs one it2 program.
type Client struct {
	// Bin is the it2 program's path.
	Bin string
	// Env is the environment it2 runs with; nil inherits paneteam's.
	Env []string
}

// Session is one entry of 'it2 session list --json'. Only ID is relied on;
// the rest is shown to people.
type Session struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Title    string     `json:"title"`
	TTY      string     `json:"tty"`
	Rows     int        `json:"rows"`
	Cols     int        `json:"cols"`
	IsTmux   bool       `json:"is_tmux"`
	WindowID flexString `json:"window_id"`
	TabID    flexString `json:"tab_id"`
}

// Run runs it2 with args and returns its trimmed stdout.
func (c Client) run(ctx context.Context, args ...string) (string, error) {
	bin := c.Bin
	if bin == "" {
		bin = "it2"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = c.Env
	// No terminal on stdin: the Python it2 then refuses to prompt (close
	// without -f fails instead of hanging).
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		code := -1
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (iTerm2 may be showing a dialog asking whether to allow it2 to connect)", ctx.Err())
		}
		se := strings.TrimSpace(stderr.String())
		return "", &Error{Args: args, Code: code, Stderr: se, Err: classify(err, code, se)}
	}
	return strings.TrimSpace(stdout.String()), nil
}

// Sessions lists every session. It reads the JSON form: the table form
// cuts ids short when stdout is not a terminal.
func (c Client) Sessions(ctx context.Context) ([]Session, error) {
	out, err := c.run(ctx, "session", "list", "--json")
	if err != nil {
		return nil, err
	}
	var ss []Session
	if err := json.Unmarshal([]byte(out), &ss); err != nil {
		return nil, fmt.Errorf("it2 session list --json: output is not a session list: %w", err)
	}
	return ss, nil
}

// Has reports whether a session with that id is alive.
func (c Client) Has(ctx context.Context, id string) (bool, error) {
	ss, err := c.Sessions(ctx)
	if err != nil {
		return false, err
	}
	for _, s := range ss {
		if strings.EqualFold(s.ID, id) {
			return true, nil
		}
	}
	return false, nil
}

// SplitOptions says which session to split and how.
type SplitOptions struct {
	// Target is the session to split; "" splits the active session.
	Target string
	// Vertical puts the new pane beside the target (it2's -v); otherwise
	// below it.
	Vertical bool
	// Profile names the iTerm2 profile of the new pane; "" uses the
	// target's.
	Profile string
}

// Split makes a new pane and returns its session id.
func (c Client) Split(ctx context.Context, o SplitOptions) (string, error) {
	args := []string{"session", "split"}
	if o.Vertical {
		args = append(args, "-v")
	}
	if o.Target != "" {
		args = append(args, "-s", o.Target)
	}
	if o.Profile != "" {
		args = append(args, "-p", o.Profile)
	}
	out, err := c.run(ctx, args...)
	if err != nil {
		return "", err
	}
	return parseCreated(out)
}

var createdRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Created new pane: (\S+)`) })

// parseCreated finds the new id in "Created new pane: <UUID>".
func parseCreated(out string) (string, error) {
	m := createdRE().FindStringSubmatch(out)
	if m == nil || !ValidID(m[1]) {
		return "", fmt.Errorf("it2 session split: no session id in its output %q", out)
	}
	return m[1], nil
}

// Run types line into the session followed by a carriage return.
func (c Client) Run(ctx context.Context, id, line string) error {
	_, err := c.run(ctx, "session", "run", "-s", id, line)
	return err
}

// SetName names the session (shown in its title and tab).
func (c Client) SetName(ctx context.Context, id, name string) error {
	_, err := c.run(ctx, "session", "set-name", name, "-s", id)
	return err
}

// Close closes the session without asking (-f: with no terminal on stdin
// it2 would otherwise fail on its confirmation prompt).
func (c Client) Close(ctx context.Context, id string) error {
	_, err := c.run(ctx, "session", "close", "-f", "-s", id)
	return err
}

// Regular expressions are compiled on first use, not at every start of
// the binary.
var uuidRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
})

// ValidID reports whether id has the shape of an iTerm2 session id (a
// UUID), the only kind of id paneteam passes to it2.
func ValidID(id string) bool { return uuidRE().MatchString(id) }

// SessionFromEnv returns the session UUID of an ITERM_SESSION_ID value
// ("w0t1p0:<UUID>": window, tab and pane, then the id it2 takes), or "".
func SessionFromEnv(v string) string {
	_, id, ok := strings.Cut(v, ":")
	if !ok {
		id = v
	}
	if !ValidID(id) {
		return ""
	}
	return id
}

// flexString accepts a JSON string or number: window and tab ids are
// printed as either, depending on the it2 flavour.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("want a string or number, got %s", b)
	}
	*f = flexString(n.String())
	return nil
}
