package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/factory"
	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

func webCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "web",
		Usage: "the team in a browser, on this machine or your phone: live members, tasks and requests, with Approve, Deny, Send and Stop",
		Description: `Serves a page that shows the team live (members' state, CLI, backend,
branch, unread and cost; tasks; the requests waiting for you; messages to
and from the lead) and acts on it through the same operations as the
command line: approve or deny a permission or sandbox request, approve or
reject a plan with feedback, send a message, stop a teammate, bring back a
team whose lead and panes went away (Resume, as 'paneteam resume --team'
run here would). A teammate that asks in its own pane (an agent CLI's
prompt, a dialog) can be shown and answered with a dialog's keys or a line
of text, only in a pane paneteam started for the team; Claude's lead's own
pane only when started with 'paneteam claude --answer-from-web' (in tmux,
kitty, WezTerm, Zellij 0.44+ or iTerm2 with it2). It runs in
the foreground until Ctrl-C. Without --team (or PANETEAM_TEAM) the page
shows every team under the root when it starts, with a switch between
them; one URL and one session serve them all.

The first line it prints is the URL to open; on a terminal a QR code of
it follows, for a phone's camera (not with --json, nor into a pipe). It
carries a one-time-looking secret (?token=); whoever has it can act as
you on this team, so treat it like a password. Opening it gives the
browser a session cookie and drops the token from the address bar.
Sessions end after --session-ttl, when paneteam web stops, or at once
with 'paneteam web --revoke' (which also makes the running server print
a new URL).

    paneteam web                                  # every team under the root, with a switch
    paneteam web --team review
    paneteam web --team review --read-only        # a view to share: it can change nothing
    ssh -L 7480:127.0.0.1:7480 devbox             # on a laptop or phone: then open the URL there
    paneteam web --team review --listen 0.0.0.0:7480   # the network: HTTPS with its own certificate

It listens on 127.0.0.1 unless told otherwise. Any other address is served
over HTTPS only: your own certificate (--tls-cert, --tls-key) or one
paneteam makes and keeps in its state folder, whose SHA-256 fingerprint it
prints. Behind a proxy (tailscale serve), --host NAME is the name it
answers to, and the URL printed first is https://NAME/?token=... (the one
on this machine follows); any other Host header is refused. A phone installs the page
and shows its notifications (after "Allow notifications") only over a
certificate it trusts or localhost: an ssh tunnel or tailscale serve, not
paneteam's own certificate. Every action taken from a
page is printed here and kept in the state folder's web/actions.log.
docs/WEB.md is the security model.

The page is served by the program paneteam-web, installed beside paneteam
('go install github.com/paneteam/paneteam/cmd/...@latest' installs both);
PANETEAM_WEB_BIN names another.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "listen", Usage: "host:port to listen on; anything but loopback is served over HTTPS", Value: "127.0.0.1:7480"},
			&ucli.BoolFlag{Name: "read-only", Usage: "the URL sees everything and can change nothing"},
			&ucli.StringSliceFlag{Name: "host", Usage: "a name the server answers to (behind a proxy such as tailscale serve); repeat for more"},
			&ucli.StringFlag{Name: "tls-cert", Usage: "your own certificate (PEM) for HTTPS"},
			&ucli.StringFlag{Name: "tls-key", Usage: "the key (PEM) of --tls-cert"},
			&ucli.DurationFlag{Name: "session-ttl", Usage: "how long a browser's session lasts", Value: 12 * time.Hour},
			&ucli.DurationFlag{Name: "stop-timeout", Usage: "how long Stop waits for a teammate to answer its shutdown request", Value: lifecycle.DefaultShutdownTimeout},
			&ucli.BoolFlag{Name: "revoke", Usage: "end every session of the running paneteam web, which then prints a new URL"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readWebOptions(c)
			if err != nil {
				return err
			}
			return runWeb(ctx, env, o)
		},
	}
}

// webOptions are web's flags.
type webOptions struct {
	Scope       teamScope
	Listen      string
	ReadOnly    bool
	Hosts       []string
	TLSCert     string
	TLSKey      string
	SessionTTL  time.Duration
	StopTimeout time.Duration
	Revoke      bool
	JSON        bool
}

func readWebOptions(c *ucli.Command) (webOptions, error) {
	if c.NArg() > 0 {
		return webOptions{}, usagef("web takes no arguments (got %q): name the team with --team", c.Args().First())
	}
	f := readFlags(c)
	o := webOptions{Scope: readTeamScope(c), Listen: f.String("listen"), ReadOnly: f.Bool("read-only"), Hosts: f.StringSlice("host"),
		TLSCert: f.String("tls-cert"), TLSKey: f.String("tls-key"), SessionTTL: f.Duration("session-ttl"),
		StopTimeout: f.Duration("stop-timeout"), Revoke: f.Bool("revoke"), JSON: f.Bool("json")}
	if o.SessionTTL <= 0 || o.StopTimeout <= 0 {
		return o, usagef("--session-ttl and --stop-timeout must be positive, such as 12h")
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return o, usagef("--tls-cert and --tls-key go together: give both")
	}
	return o, nil
}

// WebTeam is one team the page shows: the team, the keys its answers
// are signed with, and the watcher that follows it.
type WebTeam struct {
	Team    team.Team
	Keys    factory.Keys
	Watcher *teamwatch.Watcher
}

// WebSession is what the web server needs: the teams, how to act on
// them, and where and how to listen.
type WebSession struct {
	// Teams are --team's, or without it every team under the root; the
	// page switches between them.
	Teams           []WebTeam
	Lock            lockfile.Options
	Backend         backend.Env
	Caller          post.Caller
	ShutdownTimeout time.Duration
	// Resume is how the page's Resume brings a team back, as 'paneteam
	// resume --team' run here would (its Team unset).
	Resume          resume.Options
	Token           string
	Listen          string
	Hosts           []string
	ReadOnly        bool
	TLSCert, TLSKey string
	SessionTTL      time.Duration
	StateDir        string // paneteam web's folder: <state>/web
	JSON            bool
	// QR draws the URL as a QR code for a phone: only when Out is a
	// terminal and JSON is off, so a pipe or a script reads the URL alone.
	QR  bool
	Out io.Writer
}

// WebServe serves the page until ctx ends. It is set by paneteam-web
// (cmd/paneteam-web), the program that links net/http; in paneteam it is
// nil and 'paneteam web' becomes that program, so that no other command
// links package net (TestNoNetOrCgo: a cgo build would then link libc
// dynamically, at a cost to every start).
var WebServe func(ctx context.Context, s WebSession) error

// NewWebToken makes the URL's secret; set by paneteam-web beside WebServe.
var NewWebToken func() (string, error)

const webName = "paneteam-web"

// webDir is paneteam web's folder in the state folder.
func webDir(env Env) (string, error) {
	state, err := env.stateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(state, "web"), nil
}

func runWeb(ctx context.Context, env Env, o webOptions) error {
	dir, err := webDir(env)
	if err != nil {
		return err
	}
	if o.Revoke {
		return revokeWeb(env, dir, o.JSON)
	}
	if WebServe == nil {
		return execWeb(env)
	}
	scopes, err := webScopes(o.Scope, env)
	if err != nil {
		return err
	}
	tok, err := NewWebToken()
	if err != nil {
		return fmt.Errorf("make the URL's token: %w", err)
	}
	opts := stateOptions(env)
	if state, err := env.stateDir(); err == nil {
		opts.Cost = costReader(env, state)
	}
	s := WebSession{Lock: o.Scope.Lock, Backend: statusBackendEnv(env), Caller: post.Caller{Getenv: env.Getenv},
		ShutdownTimeout: o.StopTimeout, Token: tok, Listen: o.Listen, Hosts: o.Hosts, ReadOnly: o.ReadOnly,
		TLSCert: o.TLSCert, TLSKey: o.TLSKey, SessionTTL: o.SessionTTL, StateDir: dir, JSON: o.JSON, QR: env.StdoutTTY && !o.JSON, Out: env.Stdout}
	if s.Resume, err = resumeBase(ctx, env, o.Scope.Lock, 0); err != nil {
		return err
	}
	for _, sc := range scopes {
		t, _, err := sc.open(ctx, env)
		if err != nil && len(scopes) > 1 {
			// One broken team under the root does not hide the others.
			warnf(env, "team %s is left off the page: %v", sc.Team, err)
			continue
		}
		if err != nil {
			return err
		}
		// The server spends nothing while the team is quiet: its safety-net
		// re-read backs off where events announce what it would notice.
		w := teamwatch.NewWatcher(t, teamwatch.WatchOptions{Options: opts, QuietPoll: teamwatch.DefaultQuietPoll})
		defer w.Close() // after WebServe, which has stopped reading it
		wt := WebTeam{Team: t, Watcher: w}
		if lead, err := openLead(ctx, sc, env); err == nil {
			wt.Keys = lead.Keys // as approve and deny answer
		}
		s.Teams = append(s.Teams, wt)
	}
	if len(s.Teams) == 0 {
		return errors.New("no team under the root could be opened (see the warnings above)")
	}
	return WebServe(ctx, s)
}

// webScopes are the teams paneteam web shows: --team's (or
// PANETEAM_TEAM's), else every team under the root, in name order.
func webScopes(sc teamScope, env Env) ([]teamScope, error) {
	if sc.Team != "" {
		return []teamScope{sc}, nil
	}
	root, err := env.root(sc.Root)
	if err != nil {
		return nil, err
	}
	names, err := team.List(root)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no team under %s: start one (paneteam team-create NAME), or name another root with --root", root)
	}
	var out []teamScope
	for _, n := range names {
		one := sc
		one.Team = n
		out = append(out, one)
	}
	return out, nil
}

// revokeWeb touches the revocation stamp that a running paneteam web
// looks at every second: all its sessions end and its old URL with them.
func revokeWeb(env Env, dir string, asJSON bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	path := filepath.Join(dir, "revoke")
	now := time.Now()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	fmt.Fprintln(f, now.UTC().Format(time.RFC3339Nano))
	if err := errors.Join(f.Close(), os.Chtimes(path, now, now)); err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	if asJSON {
		return printJSON(env.Stdout, map[string]any{"revoked": true, "at": now.UTC()})
	}
	fmt.Fprintln(env.Stdout, "revoked: every paneteam web session ends within a second; the running server prints a new URL")
	return nil
}

// execWeb replaces this process with paneteam-web, given the same
// command line.
func execWeb(env Env) error {
	path, err := companionPath(env, webName, "PANETEAM_WEB_BIN")
	if err != nil {
		return err
	}
	args := append([]string{path}, env.Args[1:]...)
	if err := syscall.Exec(path, args, env.Environ()); err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	return nil
}
