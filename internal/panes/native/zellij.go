package native

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/sys/program"
)

// Zellij is driven through `zellij --session NAME action ...`
// (https://zellij.dev/documentation/cli-actions.html), using only what
// Zellij 0.41 already has:
//
//   - new-pane --direction right|down [--cwd D] [--name T] --close-on-exit -- argv
//   - new-tab --layout FILE [--name T]: a tab of its own, whose one pane
//     runs argv (a layout written to Env.Dir and removed once read);
//   - query-tab-names, for Probe;
//   - from 0.44.1, rename-pane --pane-id, to name a pane after it opened
//     (SetTitle, title.go); older Zellijs leave such a pane unnamed.
//
// Limits, from Zellij's CLI: new-pane splits the FOCUSED pane, so Beside
// is not honoured (paneteam's layouts split the lead, which has focus,
// then the newest pane, which Zellij focuses), Percent cannot be given
// (Zellij halves the pane), and the new pane takes focus. close-pane
// closes the focused pane, which may be the person's, so it is never
// used: every pane runs its program under a fixed launcher that records
// the program's pid and $ZELLIJ_PANE_ID in Env.Dir before exec'ing it,
// Close ends that process (hang-up to its process group, then kill), and
// --close-on-exit makes Zellij close the pane. List is the panes whose
// program still runs, of those this driver opened.
type zellij struct {
	env     Env
	bin     string
	sh      string
	envBin  string
	session string
}

const (
	zellijCallTimeout = 15 * time.Second
	// zellijHangupGrace is how long a pane's program gets after a hang-up
	// before Close kills it.
	zellijHangupGrace = 2 * time.Second
)

// zellijLauncher is the whole script the launcher shell runs, with the
// pid file as $1 and the program's argv after it: it records its pid
// (which exec keeps) and the pane id, then becomes the program. The argv
// is only ever expanded as "$@": no word of it is parsed by the shell.
const zellijLauncher = `printf '%s %s\n' "$$" "${ZELLIJ_PANE_ID-}" >"$1.tmp" && mv -f -- "$1.tmp" "$1" || exit 127
shift
exec "$@"`

func init() { constructors["zellij"] = newZellij }

func newZellij(e Env) (Terminal, error) {
	bin, err := e.LookPath("zellij")
	if err != nil {
		return nil, fmt.Errorf("%w: zellij is not on PATH (%v): install Zellij 0.41 or later (https://zellij.dev/documentation/installation) and run paneteam inside a session", ErrUnavailable, err)
	}
	session := e.Getenv("ZELLIJ_SESSION_NAME")
	if session == "" {
		return nil, fmt.Errorf("%w: not inside Zellij (ZELLIJ_SESSION_NAME is not set): start paneteam from a Zellij pane", ErrUnavailable)
	}
	sh, err := e.LookPath("sh")
	if err != nil {
		return nil, fmt.Errorf("%w: sh is not on PATH (%v); paneteam's Zellij panes start their program through it", ErrUnavailable, err)
	}
	if e.Dir == "" {
		return nil, errors.New("zellij: the driver needs a private folder (Env.Dir) for its pane records")
	}
	z := &zellij{env: e, bin: bin, sh: sh, session: session}
	if p, err := e.LookPath("env"); err == nil {
		z.envBin = p
	}
	return z, nil
}

func (z *zellij) Name() string { return "zellij" }

func (z *zellij) run(ctx context.Context, args ...string) (string, error) {
	out, err := program.Output(ctx, program.Cmd{
		Path: z.bin, Name: "zellij",
		Args: append([]string{"--session", z.session}, args...),
		// The session is named on the command line; its folder is the
		// lead's, or Zellij's default when the lead had none, never the
		// caller's.
		Env:            cliEnviron(z.env.Getenv, "ZELLIJ_SOCKET_DIR"),
		DefaultTimeout: zellijCallTimeout,
	})
	if err != nil {
		return "", err
	}
	return out, nil
}

func (z *zellij) Probe(ctx context.Context) error {
	if _, err := z.run(ctx, "action", "query-tab-names"); err != nil {
		return fmt.Errorf("%w: %v: the Zellij session %q (ZELLIJ_SESSION_NAME) does not answer; start paneteam from a pane of a running Zellij session", ErrUnavailable, err, z.session)
	}
	return nil
}

// zellijRecord is what Open keeps of a pane in Env.Dir: its program's
// process, which Close ends and List checks.
type zellijRecord struct {
	PID   int    `json:"pid"`
	Start string `json:"start"`
}

func (z *zellij) recordPath(h Handle) string {
	return filepath.Join(z.env.Dir, "zellij-pane-"+string(h)+".json")
}

func (z *zellij) Open(ctx context.Context, o Open) (Handle, error) {
	argv, err := weztermEnvArgv(z.envBin, o.Env, o.Argv)
	if err != nil {
		return "", err
	}
	var tok [8]byte
	rand.Read(tok[:])
	pidFile := filepath.Join(z.env.Dir, "zellij-launch-"+hex.EncodeToString(tok[:]))
	defer os.Remove(pidFile)
	launch := append([]string{z.sh, "-c", zellijLauncher, "sh", pidFile}, argv...)
	if o.Place.OwnTab {
		layout := pidFile + ".kdl"
		if err := os.WriteFile(layout, []byte(zellijLayout(launch, o.Cwd, o.Title)), 0o600); err != nil {
			return "", fmt.Errorf("zellij: write the new tab's layout: %w", err)
		}
		defer os.Remove(layout)
		_, err = z.run(ctx, zellijTabArgs(layout, o.Title)...)
	} else {
		_, err = z.run(ctx, zellijPaneArgs(o, launch)...)
	}
	if err != nil {
		return "", err
	}
	pid, paneID, err := zellijWaitLaunch(ctx, pidFile)
	if err != nil {
		return "", err
	}
	h := Handle(paneID)
	if paneID == "" {
		h = Handle("pid" + strconv.Itoa(pid))
	}
	start, err := proc.StartTime(pid)
	if err != nil {
		if !proc.Exists(pid) {
			return h, nil // the program already ended, and its pane with it
		}
		return "", fmt.Errorf("zellij: read when the new pane's program (pid %d) started, which paneteam needs to tell it from a later process of that pid: %w", pid, err)
	}
	b, _ := json.Marshal(zellijRecord{PID: pid, Start: start})
	if err := os.WriteFile(z.recordPath(h), b, 0o600); err != nil {
		return h, fmt.Errorf("zellij: record pane %s: %w", h, err)
	}
	return h, nil
}

// zellijPaneArgs builds `action new-pane` for o, running launch.
func zellijPaneArgs(o Open, launch []string) []string {
	dir := "down"
	if o.Place.Horizontal {
		dir = "right"
	}
	args := []string{"action", "new-pane", "--direction", dir}
	if o.Cwd != "" {
		args = append(args, "--cwd", o.Cwd)
	}
	if o.Title != "" {
		args = append(args, "--name", o.Title)
	}
	args = append(args, "--close-on-exit", "--")
	return append(args, launch...)
}

// zellijTabArgs builds `action new-tab` for a layout file.
func zellijTabArgs(layout, title string) []string {
	args := []string{"action", "new-tab", "--layout", layout}
	if title != "" {
		args = append(args, "--name", title)
	}
	return args
}

// zellijLayout is a layout (https://zellij.dev/documentation/creating-a-layout)
// whose one pane runs launch in cwd and closes when it exits.
func zellijLayout(launch []string, cwd, title string) string {
	var b strings.Builder
	b.WriteString("layout {\n    pane command=" + kdlQuote(launch[0]))
	if title != "" {
		b.WriteString(" name=" + kdlQuote(title))
	}
	if cwd != "" {
		b.WriteString(" cwd=" + kdlQuote(cwd))
	}
	b.WriteString(" {\n        args")
	for _, a := range launch[1:] {
		b.WriteString(" " + kdlQuote(a))
	}
	b.WriteString("\n        close_on_exit true\n    }\n}\n")
	return b.String()
}

// kdlQuote writes s as a KDL string: quotes and backslashes escaped,
// control characters as \u{...} (valid in KDL 1 and 2).
func kdlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// zellijWaitLaunch waits for the launcher's line: the program's pid and
// the pane's id ($ZELLIJ_PANE_ID, "" where Zellij does not set it).
func zellijWaitLaunch(ctx context.Context, pidFile string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, zellijCallTimeout)
	defer cancel()
	for {
		if b, err := os.ReadFile(pidFile); err == nil {
			f := strings.Fields(string(b))
			if len(f) >= 1 {
				pid, err := strconv.Atoi(f[0])
				if err != nil || pid <= 0 {
					return 0, "", fmt.Errorf("zellij: launcher wrote %q, not a pid", b)
				}
				id := ""
				if len(f) > 1 {
					if _, err := strconv.Atoi(f[1]); err == nil {
						id = f[1]
					}
				}
				return pid, id, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, "", fmt.Errorf("zellij: the new pane's program never started (no %s): %w", pidFile, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// errZellijRecord: a pane's record names no process paneteam can tell
// from any other (no pid, or no start time: a pid alone may be any
// process, since pids are reused).
var errZellijRecord = errors.New("the pane's record does not name its program's process by pid and start time")

// readRecord reads pane h's record: an error wrapping fs.ErrNotExist
// when there is none, errZellijRecord when it names no process.
func (z *zellij) readRecord(h Handle) (zellijRecord, error) {
	var r zellijRecord
	b, err := os.ReadFile(z.recordPath(h))
	if err != nil {
		return r, err
	}
	if json.Unmarshal(b, &r) != nil || r.PID <= 1 || r.Start == "" {
		return r, fmt.Errorf("%w (%s)", errZellijRecord, z.recordPath(h))
	}
	return r, nil
}

func (z *zellij) Close(ctx context.Context, h Handle) error {
	if strings.ContainsAny(string(h), "/\x00") || h == "" {
		return fmt.Errorf("zellij: %q is not a pane handle of paneteam's", h)
	}
	r, err := z.readRecord(h)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // already gone
	}
	if err != nil {
		return fmt.Errorf("zellij: close pane %s: %w: leaving the process alone; close the pane by hand", h, err)
	}
	if !proc.Alive(r.PID, r.Start) {
		os.Remove(z.recordPath(h))
		return nil // already gone
	}
	// The pane's program leads its terminal's session (Zellij starts it
	// as a new session), so its group holds what it started.
	target := r.PID
	if pg, err := syscall.Getpgid(r.PID); err == nil && pg == r.PID {
		target = -r.PID
	}
	syscall.Kill(target, syscall.SIGHUP)
	syscall.Kill(target, syscall.SIGCONT)
	deadline := time.Now().Add(zellijHangupGrace)
	killed := false
	for proc.Alive(r.PID, r.Start) {
		if !killed && time.Now().After(deadline) {
			syscall.Kill(target, syscall.SIGKILL)
			killed, deadline = true, time.Now().Add(zellijHangupGrace)
		} else if killed && time.Now().After(deadline) {
			return fmt.Errorf("zellij: close pane %s: its program (pid %d) outlived SIGKILL", h, r.PID)
		}
		select {
		case <-ctx.Done():
			syscall.Kill(target, syscall.SIGKILL)
			return fmt.Errorf("zellij: close pane %s: %w", h, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	os.Remove(z.recordPath(h))
	return nil
}

func (z *zellij) List(ctx context.Context) ([]Handle, error) {
	files, err := filepath.Glob(filepath.Join(z.env.Dir, "zellij-pane-*.json"))
	if err != nil {
		return nil, err
	}
	var hs []Handle
	for _, f := range files {
		h := Handle(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "zellij-pane-"), ".json"))
		if r, err := z.readRecord(h); err == nil && proc.Alive(r.PID, r.Start) {
			hs = append(hs, h)
		} else if !z.env.ReadOnly {
			os.Remove(f)
		}
	}
	return hs, nil
}
