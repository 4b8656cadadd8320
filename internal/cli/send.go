package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func sendCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "send",
		Usage:     "append a message to a teammate's inbox; exits 0 only once it is on disk",
		ArgsUsage: "[TEXT | -]",
		Description: `Writes one message to teams/<team>/inboxes/<name>.json under Claude Code's
lock, atomically, and exits 0 only once it is on disk. TEXT absent or "-"
reads the message from stdin:

    git diff | paneteam send --team review --to reviewer --summary "my diff" -
    paneteam send --team review --broadcast "stand-up in 5 minutes"

A recipient that is not a member is refused with the list of members
(--create-inbox writes to it anyway). --broadcast, or --to '*' as Claude
Code's SendMessage spells it, reaches every member but the sender. --from
defaults to $PANETEAM_AGENT, else team-lead; but in a team led by a live
Claude Code process (its session team), where only that process may write
as team-lead, it defaults to $PANETEAM_AGENT, else your own name:
$PANETEAM_USER, else "human". Claude Code shows a message written as
team-lead, user or system by anyone else as verified="false" and refuses
its protocol actions, so --from team-lead there is obeyed with a warning.
A Claude Code lead reads its inbox only once it has a teammate of its own;
send says so when a message to it will wait.

Protocol messages are sent with --type, as raw frames:

    paneteam send -t review --to alice --type shutdown_request --reason "done"
    paneteam send -t review --to team-lead --from alice --type shutdown_approved --request-id ID
    paneteam send -t review --to team-lead --from alice --type idle_notification
    paneteam send -t review --to alice --type task_assignment --task-id 3 --subject "fix login"

To answer a teammate's permission, sandbox or plan request, use
'paneteam approve ID' and 'paneteam deny ID' (see 'paneteam requests'):
they bind the answer to the request (tool_use_id, input digest,
planDigest), sign it for a keyed teammate and record it as answered.
Claude Code takes a raw plan_approval_response without planDigest
from a keyed teammate's lead as a rejection, and an unbound
permission_response skips those checks; it drops mode_set_request from
an inbox altogether (docs/PROTOCOL.md §8-§9). The raw frames stay for
older Claude Code and for tools of your own.

A shutdown_request gets a new request id (shutdown-<ms>@<recipient>), printed
on stdout, one line per recipient, to match the answer against.

--lines keeps one process sending for as long as stdin stays open: each line
becomes its own message as soon as it arrives, on disk before the next line
is read (blank lines are skipped). With --json each delivery is printed as
one JSON object per line the moment it is written:

    tail -F build.log | grep --line-buffered ERROR | paneteam send -t review --to team-lead --lines

A script that sends many messages should keep one --lines open rather than
start paneteam per message: each start costs a few milliseconds.`,
		Flags: sendFlags(),
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runSend(ctx, env, readSendOptions(c, env))
		},
	}
}

// sendOptions are send's flags and arguments as given. They are checked
// in runSend, in the order the team's files make possible: a recipient is
// known only once the team is open.
type sendOptions struct {
	Scope teamScope
	// From is --from as the person typed it ("" for the default).
	From string
	// To are the recipients named with --to, in order, as given.
	To          []string
	Broadcast   bool
	CreateInbox bool
	Color       string
	Lines       bool
	JSON        bool
	// Args are TEXT (or "-"), as given.
	Args    []string
	Summary string
	// Type and Frame are --type and the protocol message's fields.
	Type  string
	Frame frameFlags
	// Given are the flags given on the command line, for refusing one
	// that is not part of the --type asked for.
	Given []string
}

func readSendOptions(c *ucli.Command, env Env) sendOptions {
	v := readFlags(c)
	return sendOptions{
		Scope: v.teamScope(), From: v.from(env),
		To: v.StringSlice("to"), Broadcast: v.Bool("broadcast"), CreateInbox: v.Bool("create-inbox"),
		Color: v.String("color"), Lines: v.Bool("lines"), JSON: v.Bool("json"),
		Args: c.Args().Slice(), Summary: v.String("summary"), Type: v.String("type"),
		Frame: frameFlags{
			RequestID: v.String("request-id"), Reason: v.String("reason"), Feedback: v.String("feedback"),
			Mode: v.String("mode"), IdleReason: v.String("idle-reason"), TaskID: v.String("task-id"),
			CompletedStatus: v.String("completed-status"), Subject: v.String("subject"),
			Description: v.String("description"), Input: v.String("input"),
			Approve: v.Bool("approve"), Reject: v.Bool("reject"), Allow: v.Bool("allow"), Deny: v.Bool("deny"),
		},
		// One pass over what was given: c.IsSet per flag walks every
		// flag's names, which a send would pay on each frame field. None
		// has an alias.
		Given: c.LocalFlagNames(),
	}
}

func runSend(ctx context.Context, env Env, o sendOptions) error {
	t, cfg, err := o.Scope.open(ctx, env)
	if err != nil {
		return err
	}
	caller := callerOf(env)
	from, err := caller.Sender(cfg, o.From)
	if err != nil {
		return usageError{err}
	}
	to, err := recipients(o, t, cfg, from)
	if err != nil {
		return err
	}
	defer noteUnpolled(env, t, cfg, to)
	p, err := caller.Open(t, cfg, o.Scope.Lock, from, to, o.Color)
	if err != nil {
		return postError(err)
	}
	if o.Lines {
		return sendLines(ctx, env, o, p, to)
	}
	draft, err := drafter(env, o, p)
	if err != nil {
		return err
	}
	sent, err := p.SendEach(ctx, to, draft)
	var some *post.Undelivered
	if err != nil && !errors.As(err, &some) {
		return postError(err)
	}
	if err := reportSent(env, o.JSON, sent); err != nil {
		return err
	}
	return err
}

func sendFlags() []ucli.Flag {
	return []ucli.Flag{
		teamFlag(),
		&ucli.StringSliceFlag{Name: "to", Usage: "recipient's member name (repeat for several)"},
		&ucli.BoolFlag{Name: "broadcast", Usage: "send to every member but the sender"},
		&ucli.StringFlag{Name: "from", Usage: "sender's name (default: $PANETEAM_AGENT, else team-lead; in a team a live Claude Code leads, $PANETEAM_USER or \"human\")", Sources: ucli.EnvVars("PANETEAM_AGENT")},
		&ucli.StringFlag{Name: "summary", Usage: "a short preview receivers show (for idle_notification: its summary)"},
		&ucli.StringFlag{Name: "color", Usage: "sender's colour shown by receivers (default: the sender's team colour): " + strings.Join(team.Colors, ", ")},
		&ucli.BoolFlag{Name: "create-inbox", Usage: "send to a name that is not a member (its inbox is created; nobody may read it)"},
		&ucli.BoolFlag{Name: "lines", Usage: "send each line of stdin as its own message, as it arrives, until stdin closes"},
		&ucli.StringFlag{Name: "type", Usage: "protocol message type: " + strings.Join(sendTypes, ", ")},
		&ucli.StringFlag{Name: "request-id", Usage: "the request answered (shutdown_approved/rejected, plan_approval_response, permission_response)"},
		&ucli.StringFlag{Name: "reason", Usage: "why (shutdown_request, shutdown_rejected, permission_response --deny; idle_notification: failure reason)"},
		&ucli.BoolFlag{Name: "approve", Usage: "plan_approval_response: approve the plan"},
		&ucli.BoolFlag{Name: "reject", Usage: "plan_approval_response: reject the plan"},
		&ucli.StringFlag{Name: "feedback", Usage: "plan_approval_response: feedback for the teammate"},
		&ucli.BoolFlag{Name: "allow", Usage: "permission_response: allow the tool call"},
		&ucli.BoolFlag{Name: "deny", Usage: "permission_response: deny the tool call"},
		&ucli.StringFlag{Name: "input", Usage: "permission_response --allow: the tool input to run, as JSON (default: the request's own input)"},
		&ucli.StringFlag{Name: "mode", Usage: "permission mode (mode_set_request; plan_approval_response --approve): " + strings.Join(mailbox.PermissionModes, ", ")},
		&ucli.StringFlag{Name: "idle-reason", Usage: "idle_notification: available, interrupted or failed", Value: mailbox.IdleAvailable},
		&ucli.StringFlag{Name: "task-id", Usage: "task_assignment: the task; idle_notification: the task just completed"},
		&ucli.StringFlag{Name: "completed-status", Usage: "idle_notification: resolved, blocked or failed"},
		&ucli.StringFlag{Name: "subject", Usage: "task_assignment: the task's subject"},
		&ucli.StringFlag{Name: "description", Usage: "task_assignment: the task's description"},
		jsonFlag(),
	}
}

// delivery is one message written, as --json prints it.
type delivery struct {
	To        string          `json:"to"`
	RequestID string          `json:"requestId,omitempty"`
	Message   mailbox.Message `json:"message"`
}

func reportSent(env Env, asJSON bool, sent []post.Delivery) error {
	if asJSON {
		out := []delivery{}
		for _, d := range sent {
			out = append(out, delivery(d))
		}
		return printJSON(env.Stdout, out)
	}
	for _, d := range sent {
		if d.RequestID != "" {
			fmt.Fprintln(env.Stdout, visible.Line(d.RequestID))
		}
	}
	return nil
}

// noteUnpolled tells the person, on stderr, when what waits for a Claude
// Code lead will not be read yet (teamwatch.LeadInboxNote).
func noteUnpolled(env Env, t team.Team, cfg *team.Config, to []string) {
	lead := team.LeadOf(cfg)
	w, err := teamwatch.CheckLeadInbox(t, cfg, lead, time.Now())
	if err != nil || !lead.ClaudeLed() || len(cfg.ClaudeTeammates()) > 0 {
		return
	}
	if w.Unpolled || slices.Contains(to, team.LeadName) {
		fmt.Fprintf(env.Stderr, "paneteam: note: %s\n", teamwatch.LeadInboxNote)
	}
}

// recipients resolves every --to, or --broadcast (--to '*', as Claude
// Code's SendMessage spells it), to inbox names (post.Recipients), each
// once, and words a refusal in send's flags.
func recipients(o sendOptions, t team.Team, cfg *team.Config, from string) ([]string, error) {
	tos := o.To
	if o.Broadcast {
		if len(tos) > 0 {
			return nil, usagef("give --to NAME or --broadcast, not both")
		}
		tos = []string{post.Everyone}
	}
	if len(tos) > 1 && slices.Contains(tos, post.Everyone) {
		return nil, usagef("--to '*' is every member already: give it alone")
	}
	if len(tos) == 0 {
		tos = []string{""} // post words the missing recipient
	}
	var out []string
	for _, to := range tos {
		names, err := recipient(o, t, cfg, from, to)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// recipient resolves one --to.
func recipient(o sendOptions, t team.Team, cfg *team.Config, from, to string) ([]string, error) {
	names, err := post.Recipients(t, cfg, from, post.Address{To: to, CreateInbox: o.CreateInbox})
	var re *post.RecipientError
	if !errors.As(err, &re) {
		return names, err
	}
	members := strings.Join(re.Members, ", ")
	switch re.Reason {
	case post.NoRecipient:
		return nil, usagef("no recipient: pass --to NAME or --broadcast (members: %s)", members)
	case post.EveryoneNewInbox:
		return nil, usagef("--create-inbox goes with --to NAME, not --broadcast")
	case post.NobodyElse:
		return nil, fmt.Errorf("nobody to broadcast to: team %s has no member but %s (members: %s)", t.Name, from, members)
	case post.NotMember:
		return nil, fmt.Errorf("%q is not a member of team %s (members: %s); "+
			"pass --create-inbox to write to its inbox anyway", re.To, t.Name, members)
	case post.BadName:
		return nil, usageError{re.Err}
	}
	return nil, err
}

// messageText is the TEXT argument, or stdin when it is absent or "-".
func messageText(env Env, args []string) (string, error) {
	switch {
	case len(args) > 1:
		return "", usagef("give the message as one argument (quote it) or on stdin, got %d arguments", len(args))
	case len(args) == 1 && args[0] != "-":
		return args[0], nil
	}
	b, err := io.ReadAll(env.Stdin)
	if err != nil {
		return "", fmt.Errorf("read message from stdin: %w", err)
	}
	if len(b) == 0 {
		return "", usagef("empty message: give TEXT or pipe it on stdin")
	}
	// A pipeline's final newline (echo, heredocs) is not part of the message.
	return strings.TrimSuffix(string(b), "\n"), nil
}

// sendLines sends each line of stdin as its own message to every
// recipient as it arrives (post.Post.SendLines); with --json each
// delivery is printed the moment it is on disk.
func sendLines(ctx context.Context, env Env, o sendOptions, p *post.Post, to []string) error {
	if o.Type != "" {
		return usagef("--lines sends plain text; protocol messages (--type) are sent one per command")
	}
	if len(o.Args) > 1 || (len(o.Args) == 1 && o.Args[0] != "-") {
		return usagef("--lines reads stdin; give no TEXT (or \"-\")")
	}
	var printed func(post.Delivery) error
	if o.JSON {
		printed = func(d post.Delivery) error {
			if err := jsonLine(env.Stdout, delivery(d)); err != nil {
				return fmt.Errorf("print delivery: %w", err)
			}
			return nil
		}
	}
	return p.SendLines(ctx, env.Stdin, to, o.Summary, printed)
}
