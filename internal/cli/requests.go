package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/mailbox"
)

func requestsCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "requests",
		Usage: "list the permission, sandbox and plan requests waiting for you, the lead",
		Description: `A Claude Code teammate that needs permission for a tool call, for a network
host, or that submits its plan in plan mode, writes a request into the
lead's inbox and waits. This lists the ones waiting, oldest first, one per
line: id, teammate, kind, age, and what is asked: the whole command for
Bash, the path for edits, the whole input for other tools, a plan's title
and size. Answer them with 'paneteam approve' or 'paneteam deny'; see one
in full with 'paneteam show ID'.

    paneteam requests --team review
    paneteam requests --team review --watch            # and each new one
    paneteam requests --team review --watch --json | jq -r .id

Requests are found in the lead's inbox and in its archive (a watcher may
have marked them read). One paneteam answered, or whose teammate has left,
is not listed. What a teammate wrote is shown, never interpreted and never
cut short: a text holding control characters or escape sequences is
printed quoted as $'…' with them as escapes ($'echo a\nb' holds a real
line break, echo a\nb a typed backslash-n). --json prints an array (with
--watch: one object per line).`,
		Flags: []ucli.Flag{
			teamFlag(),
			jsonFlag(),
			&ucli.BoolFlag{Name: "watch", Aliases: []string{"w"}, Usage: "keep running and print each new request as it arrives"},
			&ucli.DurationFlag{Name: "poll", Usage: "safety-net re-read interval with --watch when no file-system event comes", Value: mailbox.DefaultPoll},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readRequestsOptions(c)
			if err != nil {
				return err
			}
			return runRequests(ctx, env, o)
		},
	}
}

// requestsOptions are requests' flags.
type requestsOptions struct {
	Scope teamScope
	JSON  bool
	Watch bool
	Poll  time.Duration
}

func readRequestsOptions(c *ucli.Command) (requestsOptions, error) {
	if c.NArg() > 0 {
		return requestsOptions{}, usagef("requests takes no arguments (got %q): see one request with 'paneteam show ID'", c.Args().First())
	}
	o := requestsOptions{Scope: readTeamScope(c), JSON: readFlags(c).Bool("json"), Watch: readFlags(c).Bool("watch"), Poll: readFlags(c).Duration("poll")}
	if o.Poll <= 0 {
		return o, usagef("--poll must be positive, such as 1s")
	}
	return o, nil
}

func runRequests(ctx context.Context, env Env, o requestsOptions) error {
	lead, err := openLead(ctx, o.Scope, env)
	if err != nil {
		return err
	}
	if o.Watch {
		return watchRequests(ctx, env, o, lead)
	}
	ls, err := lead.List()
	if err != nil {
		return err
	}
	rs := ls.Waiting()
	if o.JSON {
		return printJSON(env.Stdout, requestViews(rs, time.Now()))
	}
	if len(rs) == 0 {
		fmt.Fprintf(env.Stderr, "no requests waiting for the lead of team %s\n", visible.Line(lead.Team.Name))
	}
	writeRequests(env.Stdout, rs, time.Now())
	return nil
}

func watchRequests(ctx context.Context, env Env, o requestsOptions, lead *approval.Lead) error {
	var lastWarn string
	warn := func(err error) {
		if msg := err.Error(); msg != lastWarn {
			lastWarn = msg
			fmt.Fprintf(env.Stderr, "paneteam: warning: %s\n", visible.Line(msg))
		}
	}
	err := lead.Watch(ctx, mailbox.WatchOptions{Poll: o.Poll, OnError: warn}, func(rs []approval.Request) error {
		now := time.Now()
		if !o.JSON {
			writeRequests(env.Stdout, rs, now)
			return nil
		}
		for _, v := range requestViews(rs, now) {
			if err := jsonLine(env.Stdout, v); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, context.Canceled) {
		return nil // interrupted: the normal way to stop watching
	}
	return err
}

// writeRequests prints one line per request. The subject goes last and
// whole: a terminal wraps a long command, nothing cuts it.
func writeRequests(w io.Writer, rs []approval.Request, now time.Time) {
	for _, r := range rs {
		fmt.Fprintf(w, "%s  %s  %s  %s  %s\n", visible.Line(r.ID), visible.Line(r.From), r.Kind,
			relTime(r.Time, now), approval.Subject(r))
	}
}

// requestView is a request for --json: the request as found, plus the
// line a person would see and its age.
type requestView struct {
	approval.Request
	Subject    string `json:"subject"`
	AgeSeconds int64  `json:"age_seconds"`
}

func requestViews(rs []approval.Request, now time.Time) []requestView {
	out := make([]requestView, 0, len(rs))
	for _, r := range rs {
		out = append(out, requestView{Request: r, Subject: approval.Subject(r), AgeSeconds: int64(now.Sub(r.Time).Seconds())})
	}
	return out
}
