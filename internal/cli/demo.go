package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

func demoCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "demo",
		Usage: "watch a real team being created, spawned, talking and shut down, in a temporary folder",
		Description: `Creates a team in a temporary root (never your ~/.claude), spawns three
reference teammates ('paneteam teammate') in real panes, exchanges
messages with them, shows the team's status, shuts them down with the
shutdown handshake and cleans everything up, narrating each step and the
paneteam command behind it.

Panes are tmux panes on a private tmux server when tmux is installed (the
demo never uses the tmux server you may be in, and stops its own at the
end), in-process teammates otherwise.

    paneteam demo
    paneteam demo --backend in-process
    paneteam demo --keep          # leave the files to look at`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "backend", Value: "auto", Usage: "where the teammates run: auto, tmux or in-process"},
			&ucli.BoolFlag{Name: "keep", Usage: "leave the temporary root (and the team's files) in place at the end"},
			&ucli.DurationFlag{Name: "timeout", Value: 60 * time.Second, Usage: "give up on a step that takes longer"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runDemo(ctx, env, readDemoOptions(c))
		},
	}
}

type demoOptions struct {
	Root    string // --root; "": a temporary folder
	Backend string
	Keep    bool
	Timeout time.Duration
}

func readDemoOptions(c *ucli.Command) demoOptions {
	return demoOptions{Root: readFlags(c).String("root"), Backend: readFlags(c).String("backend"), Keep: readFlags(c).Bool("keep"), Timeout: readFlags(c).Duration("timeout")}
}

func runDemo(ctx context.Context, env Env, o demoOptions) error {
	root, state := o.Root, ""
	if root == "" {
		tmp, err := os.MkdirTemp("", "paneteam-demo-")
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if !o.Keep {
			defer os.RemoveAll(tmp)
		}
		// The team's launch records, usage cursors and kept costs go
		// with it, not into the person's own state folder.
		root, state = tmp, filepath.Join(tmp, "state")
	}
	d := &demo{env: env, root: root, state: state, backend: o.Backend, timeout: o.Timeout, keep: o.Keep}
	return d.run(ctx)
}

// demo drives paneteam's own commands, as a user would type them.
type demo struct {
	env     Env
	root    string
	state   string // paneteam's state folder for the demo's commands; "": the person's
	backend string
	timeout time.Duration
	keep    bool
	team    string
	server  string // the private tmux socket to make sure of at the end
}

var demoMates = []string{"alice", "bob", "carol"}

func (d *demo) say(format string, a ...any) {
	fmt.Fprintf(d.env.Stdout, "\n==> "+format+"\n", a...)
}

// childEnv is the environment of every paneteam the demo runs: the
// user's, without anything that points at their tmux, iTerm2, team or
// ~/.claude, and with the demo's root (and, in its temporary folder, its
// own state folder).
func (d *demo) childEnv() []string {
	var out []string
	for k, v := range d.env.Vars {
		switch k {
		case "TMUX", "TMUX_PANE", "ITERM_SESSION_ID", "TERM_PROGRAM", "CLAUDE_CONFIG_DIR",
			"PANETEAM_TEAM", "PANETEAM_AGENT", "PANETEAM_ROOT", "PANETEAM_BACKEND":
			continue
		case "PANETEAM_STATE_DIR":
			if d.state != "" {
				continue
			}
		}
		out = append(out, k+"="+v)
	}
	if d.state != "" {
		out = append(out, "PANETEAM_STATE_DIR="+d.state)
	}
	return append(out, "PANETEAM_ROOT="+d.root)
}

// pt runs paneteam with args and returns its stdout; the command line is
// shown first so the reader can repeat it.
func (d *demo) pt(ctx context.Context, show bool, args ...string) (string, error) {
	if show {
		fmt.Fprintf(d.env.Stdout, "    $ paneteam %s\n", quoteArgs(args))
	}
	c := program.Cmd{Path: d.env.Exe, Args: append([]string{"--root", d.root}, args...), Env: d.childEnv(), Timeout: d.timeout}
	var errb strings.Builder
	if show {
		c.Stderr = &errb
	}
	out, err := program.Output(ctx, c)
	if show && errb.Len() > 0 {
		indent(d.env.Stdout, errb.String())
	}
	if pe := (*program.Error)(nil); errors.As(err, &pe) {
		return out, fmt.Errorf("paneteam %s: %v: %s", args[0], pe.Err, pe.Stderr)
	}
	return out, err
}

func (d *demo) run(ctx context.Context) (err error) {
	d.say("A team in a temporary root (your ~/.claude is not touched): %s", d.root)
	out, err := d.pt(ctx, true, "team-create", "demo", "--description", "paneteam demo", "--leader-pid", strconv.Itoa(os.Getpid()))
	if err != nil {
		return err
	}
	d.team = strings.TrimSpace(out)
	defer func() {
		if err != nil {
			d.rescue()
		}
	}()
	if err := d.spawn(ctx); err != nil {
		return err
	}
	if err := d.talk(ctx); err != nil {
		return err
	}
	d.say("The team as 'status' shows it")
	if out, err = d.pt(ctx, true, "status", "--team", d.team); err != nil {
		return err
	}
	indent(d.env.Stdout, out)
	return d.finish(ctx)
}

func (d *demo) spawn(ctx context.Context) error {
	d.say("Three reference teammates, each 'paneteam teammate' in a pane of its own")
	for _, n := range demoMates {
		out, err := d.pt(ctx, true, "spawn-pane", "--team", d.team, "--name", n, "--backend", d.backend, "--json",
			"--", d.env.Exe, "teammate", "--idle-after", "1s")
		if err != nil {
			return err
		}
		var res spawn.Result
		json.Unmarshal([]byte(out), &res)
		fmt.Fprintf(d.env.Stdout, "    %s runs in %s pane %s\n", res.AgentID, res.Backend, res.PaneID)
	}
	if _, cfg, err := team.Open(d.root, d.team); err == nil && cfg.Paneteam != nil && cfg.Paneteam.TmuxPrivate {
		d.server = cfg.Paneteam.TmuxSocket
		fmt.Fprintf(d.env.Stdout, "    (a private tmux server: watch it with 'tmux -S %s attach')\n", d.server)
	}
	return nil
}

func (d *demo) talk(ctx context.Context) error {
	d.say("The lead writes to alice and bob; carol writes to alice (a peer message)")
	sends := [][]string{
		{"--to", "alice", "Please review the parser."},
		{"--to", "bob", "Please write the tests."},
		{"--from", "carol", "--to", "alice", "Can you look at my fixture?"},
	}
	for _, s := range sends {
		if _, err := d.pt(ctx, true, append([]string{"send", "--team", d.team}, s...)...); err != nil {
			return err
		}
	}
	d.say("Each teammate answers its sender with a quote; the lead waits for the replies")
	if err := d.waitInbox(ctx, team.LeadName, func(msgs []mailbox.Message) bool {
		return from(msgs, "alice", false) && from(msgs, "bob", false) && from(msgs, "alice", true) && from(msgs, "bob", true)
	}); err != nil {
		return err
	}
	out, err := d.pt(ctx, true, "inbox", "--team", d.team)
	if err != nil {
		return err
	}
	indent(d.env.Stdout, out)
	// carol reads alice's answer at once (and, being a reference teammate,
	// does not answer an answer); read messages move to the archive.
	if err := d.waitInbox(ctx, "carol", func(msgs []mailbox.Message) bool { return from(msgs, "alice", false) }, "--archived"); err != nil {
		return err
	}
	out, err = d.pt(ctx, true, "inbox", "--team", d.team, "--name", "carol", "--archived")
	if err != nil {
		return err
	}
	indent(d.env.Stdout, out)
	return nil
}

// from reports whether msgs hold a plain message (or, with idle, an
// idle_notification) from sender.
func from(msgs []mailbox.Message, sender string, idle bool) bool {
	for _, m := range msgs {
		p, isProto := mailbox.Parse(m.Text)
		if m.From == sender && (idle && isProto && p.Type == mailbox.TypeIdle || !idle && !isProto) {
			return true
		}
	}
	return false
}

// waitInbox polls an inbox through 'paneteam inbox --json' until cond holds.
// With --archived it also looks at the read messages moved aside.
func (d *demo) waitInbox(ctx context.Context, name string, cond func([]mailbox.Message) bool, extra ...string) error {
	deadline := time.Now().Add(d.timeout)
	for {
		var all []mailbox.Message
		lists := [][]string{nil}
		if len(extra) > 0 {
			lists = append(lists, extra)
		}
		for _, args := range lists {
			out, err := d.pt(ctx, false, append([]string{"inbox", "--team", d.team, "--name", name, "--json"}, args...)...)
			var msgs []mailbox.Message
			if err == nil && json.Unmarshal([]byte(out), &msgs) == nil {
				all = append(all, msgs...)
			}
		}
		if cond(all) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %s's inbox did not get the expected messages within %s", name, d.timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (d *demo) finish(ctx context.Context) error {
	d.say("Shutdown: each teammate gets a shutdown_request, approves it and ends")
	out, err := d.pt(ctx, true, "shutdown", "--team", d.team, "--all", "--timeout", "30s", "--reason", "the demo is over")
	indent(d.env.Stdout, out)
	if err != nil {
		return err
	}
	d.say("Cleanup: the team's files%s are removed", map[bool]string{true: " and its private tmux server", false: ""}[d.server != ""])
	if _, err := d.pt(ctx, true, "cleanup", "--team", d.team); err != nil {
		return err
	}
	if d.server != "" && serverUp(d.server) {
		return fmt.Errorf("demo: the private tmux server %s is still running after cleanup", d.server)
	}
	if d.keep {
		d.say("Done. The root is kept: %s", d.root)
	} else {
		d.say("Done. Nothing is left behind.")
	}
	return nil
}

// rescue runs after a failed step: it closes the demo's panes and stops
// its private tmux server, so a failure leaves nothing running.
func (d *demo) rescue() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fmt.Fprintln(d.env.Stderr, "paneteam demo: a step failed; closing the demo's teammates")
	d.pt(ctx, false, "cleanup", "--team", d.team, "--force")
	if d.server != "" && serverUp(d.server) {
		tmux.Server{Socket: d.server}.Run(ctx, "kill-server")
	}
}

func serverUp(sock string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := tmux.Server{Socket: sock}.Run(ctx, "list-sessions")
	return err == nil
}

func indent(w interface{ Write([]byte) (int, error) }, s string) {
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l != "" {
			fmt.Fprintf(w, "      %s\n", l)
		}
	}
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$") {
			a = strconv.Quote(a)
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
