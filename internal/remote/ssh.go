// Package remote runs teammates on other machines over OpenSSH: one
// ControlMaster connection per team and host carries everything; the
// team's folders reach the host through sshfs in passive mode, served by
// the lead's own sftp-server confined to that team's folders (nothing to
// install on the lead, no inbound connection); the teammate's pane is an
// `ssh -tt` session over the same connection.
package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// EnvSSH names the ssh command line paneteam runs, as git's
// GIT_SSH_COMMAND does (default: ssh on PATH).
const EnvSSH = "PANETEAM_SSH"

// Keepalive is how often the lead's ssh checks the connection
// (ServerAliveInterval), and KeepaliveCount how many unanswered checks
// end it: a frozen connection is given up after about 15 s, and the
// teammate on the host stops by then too.
const (
	Keepalive      = 5 * time.Second
	KeepaliveCount = 3
)

// Client runs ssh to one host for one team, every session over one
// ControlMaster connection.
type Client struct {
	Host string
	// ControlPath is the master's socket on the lead.
	ControlPath string
	base        []string
}

// NewClient checks the host name and builds the ssh command line from
// getenv(EnvSSH) (or ssh). stateDir is the lead's private folder for
// sockets and logs; team names the team the connection serves.
func NewClient(getenv func(string) string, host, stateDir, team string) (*Client, error) {
	if err := CheckHost(host); err != nil {
		return nil, err
	}
	base, err := SplitCommand(getenv(EnvSSH))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvSSH, err)
	}
	if len(base) == 0 {
		base = []string{"ssh"}
	}
	sum := sha256.Sum256([]byte(strings.Join(base, "\x00") + "\x00" + host + "\x00" + team))
	return &Client{Host: host, base: base, ControlPath: filepath.Join(stateDir, fmt.Sprintf("ssh-%x", sum[:6]))}, nil
}

// CheckHost refuses a host that ssh would read as an option or that
// could not be a destination.
func CheckHost(host string) error {
	if host == "" || strings.HasPrefix(host, "-") || strings.IndexFunc(host, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fmt.Errorf("--host %q is not an ssh destination: give a name from your ssh config, or user@host", host)
	}
	return nil
}

// args is the ssh command line for one use: whatever the person's ssh
// config says, paneteam's connection forwards no agent, no X11 and no
// ports, never asks for a password or a host key (BatchMode), checks the
// connection every Keepalive, and goes through the team's master.
func (c *Client) args(extra ...string) []string {
	return c.argsOn(c.base, extra...)
}

func (c *Client) argsOn(base []string, extra ...string) []string {
	a := append([]string(nil), base...)
	a = append(a, "-a", "-x",
		"-o", "ForwardAgent=no", "-o", "ForwardX11=no", "-o", "ForwardX11Trusted=no",
		"-o", "ClearAllForwardings=yes", "-o", "PermitLocalCommand=no", "-o", "BatchMode=yes",
		"-o", "ServerAliveInterval="+strconv.Itoa(int(Keepalive.Seconds())),
		"-o", "ServerAliveCountMax="+strconv.Itoa(KeepaliveCount),
		"-o", "ControlPath="+c.ControlPath)
	return append(a, extra...)
}

// Argv is the command line that runs script on the host (see Wire) over
// the master; tty asks for a terminal (a teammate's pane), with no escape
// character so nothing typed into the pane is taken by ssh itself.
//
// ProxyCommand=false: when the master cannot give ssh a session (sshd's
// MaxSessions reached, or the master gone), ssh would silently log in
// again on a connection of its own, outside the team's one connection,
// its keepalive and its end; the proxy that always fails makes it fail
// instead, with the master's reason on stderr. ssh keeps the first
// value of an option, so the person's own -J, ProxyJump or ProxyCommand
// in PANETEAM_SSH are left out of the session's command line; the master
// keeps them.
func (c *Client) Argv(script string, tty bool) []string {
	extra := []string{"-o", "ControlMaster=no", "-o", "ProxyCommand=false", "-T"}
	if tty {
		extra = []string{"-o", "ControlMaster=no", "-o", "ProxyCommand=false", "-tt", "-o", "EscapeChar=none"}
	}
	return append(c.argsOn(withoutProxy(c.base), extra...), "--", c.Host, Wire(script))
}

// sshArgOptions are ssh's options that take a value (ssh(1)).
const sshArgOptions = "BbcDEeFIiJLlmOoPpQRSWw"

// withoutProxy is the ssh command line base without its -J, ProxyJump
// and ProxyCommand: ssh keeps the first value it is given, so one of the
// person's would win over a session's ProxyCommand=false. Only the
// master needs them; a session goes through the master.
func withoutProxy(base []string) []string {
	if len(base) == 0 {
		return base
	}
	out := []string{base[0]}
	for i := 1; i < len(base); i++ {
		a := base[i]
		if a == "--" || !strings.HasPrefix(a, "-") || len(a) < 2 {
			out = append(out, base[i:]...)
			break
		}
		// A word of flags: "-v", "-vJ jump", "-oProxyJump=x", "-o" "K=V".
		kept := "-"
		for j := 1; j < len(a); j++ {
			if !strings.ContainsRune(sshArgOptions, rune(a[j])) {
				kept += a[j : j+1]
				continue
			}
			val, next := a[j+1:], false
			if val == "" && i+1 < len(base) {
				val, next = base[i+1], true
			}
			if a[j] != 'J' && !(a[j] == 'o' && proxyOption(val)) {
				kept += a[j:]
				if next {
					out = append(out, kept, val)
					kept = "-"
					i++
				}
			} else if next {
				i++
			}
			break
		}
		if kept != "-" {
			out = append(out, kept)
		}
	}
	return out
}

// proxyOption: an -o value that sets ProxyCommand or ProxyJump.
func proxyOption(v string) bool {
	k := strings.TrimSpace(v)
	if i := strings.IndexAny(k, "= \t"); i >= 0 {
		k = k[:i]
	}
	return strings.EqualFold(k, "ProxyCommand") || strings.EqualFold(k, "ProxyJump")
}

// Command is an exec.Cmd for Argv(script, false).
func (c *Client) Command(ctx context.Context, script string) *exec.Cmd {
	a := c.Argv(script, false)
	return exec.CommandContext(ctx, a[0], a[1:]...)
}

// Run runs script on the host and returns its stdout.
func (c *Client) Run(ctx context.Context, script string, stdin []byte) ([]byte, error) {
	cmd := c.Command(ctx, script)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		return out.Bytes(), c.explain(err, errb.String())
	}
	return out.Bytes(), nil
}

// runAsSessionsFree is Run that tries again for up to d while sshd
// refuses the session (MaxSessions): a session being given back, as a
// pane or a mount ends, frees its place a moment later.
func (c *Client) runAsSessionsFree(ctx context.Context, script string, d time.Duration) ([]byte, error) {
	deadline := time.Now().Add(d)
	for {
		out, err := c.Run(ctx, script, nil)
		if !errors.Is(err, ErrSessions) || time.Now().After(deadline) || ctx.Err() != nil {
			return out, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Connected reports whether the master is up.
func (c *Client) Connected(ctx context.Context) bool {
	_, up := c.master(ctx)
	return up
}

// master asks ssh whether the master is up, and its pid ("Master running
// (pid=N)"; 0 when ssh does not say).
func (c *Client) master(ctx context.Context) (int, bool) {
	a := c.args("-O", "check", "--", c.Host)
	out, err := exec.CommandContext(ctx, a[0], a[1:]...).CombinedOutput()
	if err != nil {
		return 0, false
	}
	pid := 0
	if _, rest, ok := strings.Cut(string(out), "(pid="); ok {
		digits, _, _ := strings.Cut(rest, ")")
		pid, _ = strconv.Atoi(digits)
	}
	return pid, true
}

// connectTimeout is how many seconds ssh waits for the host to answer.
const connectTimeout = 20

// Connect starts the master, or keeps the one running. It returns once
// ssh has logged in, or with an error that says what to change.
func (c *Client) Connect(ctx context.Context) error {
	if c.Connected(ctx) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.ControlPath), 0o700); err != nil {
		return fmt.Errorf("connect to %s: %w", c.Host, err)
	}
	// -f: ssh goes to the background once logged in. Its stderr is a
	// file, not a pipe: the background master keeps it open.
	log, err := os.CreateTemp(filepath.Dir(c.ControlPath), "connect-*.log")
	if err != nil {
		return fmt.Errorf("connect to %s: %w", c.Host, err)
	}
	defer os.Remove(log.Name())
	defer log.Close()
	// ConnectTimeout: a host that does not answer (down, or a network
	// that drops packets) fails the spawn or reconnect in seconds rather
	// than after the system's TCP timeout (a ConnectTimeout given in
	// PANETEAM_SSH comes first and wins).
	a := c.args("-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-o", "ConnectTimeout="+strconv.Itoa(connectTimeout), "-N", "-f", "--", c.Host)
	cmd := exec.CommandContext(ctx, a[0], a[1:]...)
	cmd.Stderr = log
	err = cmd.Run()
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("connect to %s: no answer before paneteam gave up (is the host up, and reachable from here?): %w", c.Host, ctx.Err())
	}
	if err != nil {
		msg, _ := os.ReadFile(log.Name())
		return c.explain(err, string(msg))
	}
	return nil
}

// Close ends the master and with it every session it carries.
func (c *Client) Close(ctx context.Context) error {
	pid, up := c.master(ctx)
	if !up {
		os.Remove(c.ControlPath)
		return nil
	}
	a := c.args("-O", "exit", "--", c.Host)
	out, err := exec.CommandContext(ctx, a[0], a[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("close the connection to %s: %w: %s", c.Host, err, bytes.TrimSpace(out))
	}
	// The master removes its socket before it exits: wait for the
	// process too, so nothing of the connection runs once Close returns.
	for i := 0; i < 250 && (fileExists(c.ControlPath) || running(pid)); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// running reports whether pid is a live process (not a zombie), as far
// as /proc tells; without /proc, or for pid 0, it reports false.
func running(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "N (ssh) S ...".
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}

// Errors a person meets when connecting, each with its fix.
var (
	ErrHostKey  = errors.New("the host key is not known")
	ErrAuth     = errors.New("key authentication refused")
	ErrSessions = errors.New("the connection has no session left")
)

// explain turns ssh's failure into an error that says what to do.
func (c *Client) explain(err error, stderr string) error {
	msg := strings.TrimSpace(stderr)
	switch {
	case strings.Contains(msg, "Host key verification failed"), strings.Contains(msg, "No ED25519 host key is known"), strings.Contains(msg, "host key for") && strings.Contains(msg, "has changed"):
		return fmt.Errorf("ssh %s: %w: connect once with `ssh %s`, check the fingerprint and accept it, then try again (%s)", c.Host, ErrHostKey, c.Host, lastLine(msg))
	case strings.Contains(msg, "Permission denied"):
		return fmt.Errorf("ssh %s: %w: paneteam logs in with a key or an ssh agent only, never a password: add your key to the host (ssh-copy-id %s) or load it into your agent (%s)", c.Host, ErrAuth, c.Host, lastLine(msg))
	case sessionRefused(msg):
		return fmt.Errorf("ssh %s: %w: sshd's MaxSessions on %s (10 by default) caps the sessions on the team's one connection there, and each teammate on it holds 2 (its pane and its mount): raise MaxSessions in the host's /etc/ssh/sshd_config (then reload sshd there), put this teammate on another host, or end a teammate on this one", c.Host, ErrSessions, c.Host)
	}
	if msg == "" {
		return fmt.Errorf("ssh %s: %w", c.Host, err)
	}
	return fmt.Errorf("ssh %s: %w: %s", c.Host, err, lastLine(msg))
}

// sessionRefused: ssh's words when the master could not open a session.
func sessionRefused(msg string) bool {
	return strings.Contains(msg, "Session open refused") || strings.Contains(msg, "session request failed") || strings.Contains(msg, "open failed")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// SplitCommand splits a command line as a POSIX shell would split plain
// words, single and double quotes and backslashes: enough for
// PANETEAM_SSH="ssh -F '/path with space/config'". Nothing is expanded.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed \" in %q", s)
			}
			inWord = true
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
