// Package shim is paneteam run under the name tmux: the tmux Claude Code
// finds first on PATH when 'paneteam claude' starts it. Claude Code's
// lead drives its teammates' panes with a small set of tmux calls
// (docs/CLAUDE-TMUX.md); the shim interprets the calls addressed to the
// lead's tmux server (its -S socket inside tmux, -L claude-swarm-<pid>
// outside), so that the panes are laid out by paneteam's layout policy,
// marked as paneteam's, and start their command without a shell of the
// person's. Every other call (a teammate's own Bash tool running tmux,
// Claude's screen probes) goes to the real tmux untouched: the shim
// replaces itself with it.
//
// A call addressed to the shim that it does not know fails with a message
// that names the call, the Claude Code release and the log it was
// written to: a new release's new call shows at once instead of breaking
// a team quietly.
package shim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/tmux"
)

// The environment 'paneteam claude' gives Claude Code, which Claude's
// calls to tmux carry to the shim.
const (
	// EnvDir is the folder holding the shim (first on PATH). Its presence
	// turns interpretation on; without it every call passes through.
	EnvDir = "PANETEAM_SHIM_DIR"
	// EnvTmux is the real tmux (found on PATH after the shim's folder).
	EnvTmux = "PANETEAM_SHIM_TMUX"
	// EnvSocket is the socket of the tmux server the lead runs in (the
	// first field of $TMUX); calls with -S naming it are the shim's.
	EnvSocket = "PANETEAM_SHIM_SOCKET"
	// EnvLayout is the layout policy: main-vertical, tiled or windows.
	EnvLayout = "PANETEAM_SHIM_LAYOUT"
	// EnvLog is the file where unknown calls (and, with EnvTrace, every
	// call) are logged, one JSON object a line.
	EnvLog = "PANETEAM_SHIM_LOG"
	// EnvClaude is the Claude Code release the lead is, for messages.
	EnvClaude = "PANETEAM_SHIM_CLAUDE"
	// EnvTrace set to 1 logs every call with its exit code and output.
	EnvTrace = "PANETEAM_SHIM_TRACE"
	// EnvPassthrough set to 1 interprets nothing: every call goes to the
	// real tmux (with EnvTrace: a recording of what Claude calls).
	EnvPassthrough = "PANETEAM_SHIM_PASSTHROUGH"
)

// LeadOption is the pane user option the shim sets on every pane it makes
// for a Claude Code lead: "<pid>:<start time>" of that lead process, so
// that a pane whose lead is gone can be proven so ('cleanup --orphans').
const LeadOption = tmux.ClaudeLeadOption

// callTimeout bounds one call: Claude waits for each.
const callTimeout = 30 * time.Second

// Shim is one run of paneteam as tmux.
type Shim struct {
	Getenv         func(string) string
	Environ        []string
	Stdout, Stderr io.Writer
	// Self is this program's own file (to never find itself as tmux).
	Self string
	// PPID is the calling process (Claude Code's lead).
	PPID int

	real   string   // the real tmux
	shimAt []string // PATH entries whose tmux is this program
	call   Call
	policy layout.Policy
}

// Main runs paneteam as tmux with argv (argv[0] is the name it was run
// as) and returns the exit code. A call passed through never returns: the
// process becomes the real tmux.
func Main(argv []string) int {
	self, _ := os.Executable()
	s := &Shim{Getenv: os.Getenv, Environ: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr, Self: self, PPID: os.Getppid()}
	return s.Run(argv)
}

// Run is Main for a given Shim.
func (s *Shim) Run(argv []string) int {
	var err error
	s.real, s.shimAt, err = FindReal(s.Getenv, s.Self)
	call, perr := Parse(argv[1:])
	s.call = call
	if s.inVirtual() && s.virtualAddressed(call) {
		if perr != nil {
			return s.unknown(perr.Error())
		}
		s.setPolicy()
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		return s.serveVirtual(ctx, call)
	}
	if err != nil {
		fmt.Fprintf(s.Stderr, "paneteam (run as tmux): %v\n", err)
		return 127
	}
	if !s.addressed(call) {
		return s.pass(argv[1:])
	}
	if perr != nil {
		return s.unknown(perr.Error())
	}
	s.setPolicy()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return s.interpret(ctx, call)
}

// addressed reports whether c is for the shim: interpretation is on, and
// c names the lead's server (-S the socket 'paneteam claude' recorded) or
// a private Claude Code server (-L claude-swarm-<pid>).
func (s *Shim) addressed(c Call) bool {
	if s.Getenv(EnvDir) == "" || s.Getenv(EnvPassthrough) == "1" {
		return false
	}
	if c.Name != "" {
		return strings.HasPrefix(c.Name, "claude-swarm-")
	}
	return c.Socket != "" && sameFile(c.Socket, s.Getenv(EnvSocket))
}

func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// FindReal finds the real tmux: $PANETEAM_SHIM_TMUX, else the first tmux
// on PATH that is not this program (self). It also returns the PATH
// entries whose tmux is this program, to leave out of the real tmux's
// PATH.
func FindReal(getenv func(string) string, self string) (string, []string, error) {
	var selfFI os.FileInfo
	if self != "" {
		selfFI, _ = os.Stat(self)
	}
	isSelf := func(fi os.FileInfo) bool { return selfFI != nil && os.SameFile(fi, selfFI) }
	var found string
	var shimAt []string
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		fi, err := os.Stat(filepath.Join(dir, "tmux"))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if isSelf(fi) {
			shimAt = append(shimAt, dir)
			continue
		}
		if found == "" {
			found = filepath.Join(dir, "tmux")
		}
	}
	if p := getenv(EnvTmux); p != "" {
		if fi, err := os.Stat(p); err == nil && !isSelf(fi) {
			return p, shimAt, nil
		}
	}
	if found == "" {
		return "", shimAt, errors.New("no tmux found on PATH after paneteam's own folder: install tmux (Debian: apt-get install tmux; macOS: brew install tmux)")
	}
	return found, shimAt, nil
}

// setPolicy reads the layout policy 'paneteam claude' was given.
func (s *Shim) setPolicy() {
	s.policy = layout.Policy{Kind: layout.Kind(s.Getenv(EnvLayout))}
	if err := s.policy.Validate(); err != nil {
		s.policy = layout.Policy{}
	}
}

// realEnv is the environment of the real tmux: the shim's own variables
// and folder left out, so a tmux server it starts (and every pane on it)
// does not carry them.
func (s *Shim) realEnv() []string {
	out := make([]string, 0, len(s.Environ))
	for _, kv := range s.Environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "PANETEAM_SHIM_"):
			continue
		case (k == "TMUX" || k == "TMUX_PANE") && s.inVirtual():
			// paneteam's own tmux for a lead in another terminal: no
			// real tmux knows it.
			continue
		case k == "PATH":
			var keep []string
			for _, d := range filepath.SplitList(v) {
				if !contains(s.shimAt, d) && d != s.Getenv(EnvDir) {
					keep = append(keep, d)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(filepath.ListSeparator))
		}
		out = append(out, kv)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// pass hands the call to the real tmux: the process becomes it (exit
// code, output and signals are tmux's own), or, when every call is
// traced, runs it and logs the result.
func (s *Shim) pass(args []string) int {
	if s.Getenv(EnvTrace) == "1" {
		out, errOut, rc := s.runArgs(context.Background(), args, true)
		s.log(rc, out, "")
		io.WriteString(s.Stdout, out)
		io.WriteString(s.Stderr, errOut)
		return rc
	}
	err := syscall.Exec(s.real, append([]string{"tmux"}, args...), s.realEnv())
	fmt.Fprintf(s.Stderr, "paneteam (run as tmux): run %s: %v\n", s.real, err)
	return 127
}

// runArgs runs the real tmux with args and returns its output and exit
// code; with stdin, the caller's standard input is the real tmux's.
func (s *Shim) runArgs(ctx context.Context, args []string, stdin bool) (string, string, int) {
	cmd := exec.CommandContext(ctx, s.real, args...)
	cmd.Env = s.realEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin {
		cmd.Stdin = os.Stdin
	}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	case err != nil:
		return out.String(), errb.String() + fmt.Sprintf("paneteam (run as tmux): run %s: %v\n", s.real, err), 1
	}
	return out.String(), errb.String(), 0
}

// tmux runs one tmux command on the call's server (its global options
// first) and returns its output and exit code.
func (s *Shim) tmux(ctx context.Context, args ...string) (string, string, int) {
	return s.runArgs(ctx, append(append([]string{}, s.call.Globals...), args...), false)
}

// seq runs several tmux commands in one call, separated as tmux expects;
// an argument ending in ';' is escaped so that it stays one argument.
func (s *Shim) seq(ctx context.Context, cmds ...[]string) (string, string, int) {
	var argv []string
	for i, c := range cmds {
		if i > 0 {
			argv = append(argv, ";")
		}
		for _, a := range c {
			if strings.HasSuffix(a, ";") {
				a = a[:len(a)-1] + `\;`
			}
			argv = append(argv, a)
		}
	}
	return s.tmux(ctx, argv...)
}

// finish writes a call's result as tmux would, logs it when tracing, and
// returns its exit code.
func (s *Shim) finish(out, errOut string, rc int) int {
	io.WriteString(s.Stdout, out)
	io.WriteString(s.Stderr, errOut)
	if s.Getenv(EnvTrace) == "1" {
		s.log(rc, out, "")
	}
	return rc
}

// unknown refuses a call addressed to the shim that it does not know,
// and logs it.
func (s *Shim) unknown(why string) int {
	release := s.Getenv(EnvClaude)
	if release == "" {
		release = "of unknown release"
	}
	logAt := s.Getenv(EnvLog)
	where := "not logged (no log file was set)"
	if logAt != "" {
		where = "logged in " + logAt
	}
	fmt.Fprintf(s.Stderr, "paneteam (run as tmux for Claude Code): unknown call: %s\n"+
		"  (%s)\n"+
		"  paneteam knows the tmux calls Claude Code %s makes for its teammates (docs/CLAUDE-TMUX.md); this Claude Code is %s.\n"+
		"  The call is %s; 'paneteam claude --check' shows what this release calls. Please report it to paneteam.\n",
		s.call, why, claudeversion.Tested, release, where)
	s.log(1, "", why)
	return 1
}

// logEntry is one line of the shim's log.
type logEntry struct {
	Time     string   `json:"time"`
	PID      int      `json:"pid"`
	PPID     int      `json:"ppid"`
	TMUX     string   `json:"tmux,omitempty"`
	TMUXPane string   `json:"tmux_pane,omitempty"`
	Argv     []string `json:"argv"`
	RC       int      `json:"rc"`
	Out      string   `json:"out,omitempty"`
	Unknown  string   `json:"unknown,omitempty"`
	// Gate and Error are a pane's gate that failed, and why.
	Gate  string `json:"gate,omitempty"`
	Error string `json:"error,omitempty"`
}

// log appends one entry to the log file (when there is one). One write
// of one line: concurrent calls do not interleave (O_APPEND).
func (s *Shim) log(rc int, out, unknown string) {
	path := s.Getenv(EnvLog)
	if path == "" {
		return
	}
	err := appendLog(path, logEntry{
		Time: time.Now().UTC().Format(time.RFC3339Nano), PID: os.Getpid(), PPID: s.PPID,
		TMUX: s.Getenv("TMUX"), TMUXPane: s.Getenv("TMUX_PANE"),
		Argv: s.call.Argv, RC: rc, Out: out, Unknown: unknown,
	})
	if err != nil {
		fmt.Fprintf(s.Stderr, "paneteam (run as tmux): log: %v\n", err)
	}
}

// appendLog appends e to the log at path.
func appendLog(path string, e logEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return appendLine(path, b)
}

func appendLine(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// leadTag is the LeadOption value for the calling lead.
func (s *Shim) leadTag() string {
	start, err := proc.StartTime(s.PPID)
	if err != nil {
		return strconv.Itoa(s.PPID)
	}
	return strconv.Itoa(s.PPID) + ":" + start
}

// server is the call's tmux server, for paneteam's pane lock.
func (s *Shim) server() tmux.Server {
	if s.call.Socket != "" {
		return tmux.Server{Socket: s.call.Socket, Bin: s.real}
	}
	return tmux.Server{Name: s.call.Name, Bin: s.real, TmpDir: s.Getenv("TMUX_TMPDIR")}
}
