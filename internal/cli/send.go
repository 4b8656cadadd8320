package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
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
(--create-inbox writes to it anyway). --broadcast reaches every member but
the sender. --from defaults to $PANETEAM_AGENT, else team-lead; but in a
team led by a live Claude Code process (its session team), where only that
process may write as team-lead, it defaults to $PANETEAM_AGENT, else your
own name: $PANETEAM_USER, else "human". Claude Code shows a message written
as team-lead, user or system by anyone else as verified="false" and refuses
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
Claude Code 2.1.330 takes a raw plan_approval_response without planDigest
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
			t, cfg, err := openTeam(ctx, c, env)
			if err != nil {
				return err
			}
			caller := callerOf(env)
			from, err := caller.Sender(cfg, explicitFrom(c, env))
			if err != nil {
				return usageError{err}
			}
			to, err := recipients(c, t, cfg, from)
			if err != nil {
				return err
			}
			defer noteUnpolled(env, t, cfg, to)
			p, err := caller.Open(t, cfg, lockOpts(c), from, to, c.String("color"))
			if err != nil {
				return postError(err)
			}
			if c.Bool("lines") {
				return sendLines(ctx, c, env, p, to)
			}
			compose, err := composer(c, env, t, cfg, from)
			if err != nil {
				return err
			}

			now := time.Now()
			var sent []delivery
			var failed []string
			for _, name := range to {
				d := delivery{To: name}
				d.Message, d.RequestID, err = compose(name, now)
				if err != nil {
					return err
				}
				if d.Message, err = p.Send(ctx, name, d.Message); err != nil {
					if len(to) == 1 {
						return fmt.Errorf("send to %s: %w", name, err)
					}
					failed = append(failed, fmt.Sprintf("%s (%v)", name, err))
					continue
				}
				sent = append(sent, d)
			}
			if err := reportSent(env, c.Bool("json"), sent); err != nil {
				return err
			}
			if len(failed) > 0 {
				return fmt.Errorf("not delivered to %s; delivered to the %d others", strings.Join(failed, ", "), len(sent))
			}
			return nil
		},
	}
}

func sendFlags() []ucli.Flag {
	return []ucli.Flag{
		teamFlag(),
		&ucli.StringFlag{Name: "to", Usage: "recipient's member name"},
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

func reportSent(env Env, asJSON bool, sent []delivery) error {
	if asJSON {
		if sent == nil {
			sent = []delivery{}
		}
		return printJSON(env.Stdout, sent)
	}
	for _, d := range sent {
		if d.RequestID != "" {
			fmt.Fprintln(env.Stdout, d.RequestID)
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

// recipients resolves --to or --broadcast to inbox names.
func recipients(c *ucli.Command, t team.Team, cfg *team.Config, from string) ([]string, error) {
	members := strings.Join(cfg.MemberNames(), ", ")
	to, all := c.String("to"), c.Bool("broadcast")
	switch {
	case to != "" && all:
		return nil, usagef("give --to NAME or --broadcast, not both")
	case all && c.Bool("create-inbox"):
		return nil, usagef("--create-inbox goes with --to NAME, not --broadcast")
	case all:
		var names []string
		for _, m := range cfg.Members {
			if !strings.EqualFold(m.Name, from) {
				names = append(names, m.Name)
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("nobody to broadcast to: team %s has no member but %s (members: %s)", t.Name, from, members)
		}
		return names, nil
	case to == "":
		return nil, usagef("no recipient: pass --to NAME or --broadcast (members: %s)", members)
	}
	if m := cfg.Member(to); m != nil {
		return []string{m.Name}, nil
	}
	if !c.Bool("create-inbox") {
		return nil, fmt.Errorf("%q is not a member of team %s (members: %s); "+
			"pass --create-inbox to write to its inbox anyway", to, t.Name, members)
	}
	if err := team.CheckName("recipient", to); err != nil {
		return nil, usageError{err}
	}
	return []string{team.SanitizePath(to)}, nil
}

// composer returns the function that builds the message for one recipient:
// plain text, or the protocol message --type names.
func composer(c *ucli.Command, env Env, t team.Team, cfg *team.Config, from string) (composeFunc, error) {
	if err := checkTypeFlags(c); err != nil {
		return nil, err
	}
	kind := c.String("type")
	if kind == "" {
		text, err := messageText(c, env)
		if err != nil {
			return nil, err
		}
		return func(_ string, now time.Time) (mailbox.Message, string, error) {
			m := mailbox.Message{From: from, Text: text, Summary: c.String("summary"), Timestamp: mailbox.Timestamp(now)}
			return m, "", m.Validate()
		}, nil
	}
	if c.NArg() > 0 {
		return nil, usagef("--type %s takes no TEXT: its fields come from flags (see paneteam send --help)", kind)
	}
	build, err := protocolBuilder(c, t, cfg, from, kind)
	if err != nil {
		return nil, err
	}
	return func(to string, now time.Time) (mailbox.Message, string, error) {
		v, id, err := build(to, now)
		if err != nil {
			return mailbox.Message{}, "", err
		}
		text, err := mailbox.Text(v)
		if err != nil {
			return mailbox.Message{}, "", err
		}
		m := mailbox.Message{From: from, Text: text, Summary: c.String("summary"), Timestamp: mailbox.Timestamp(now)}
		if kind == mailbox.TypeIdle {
			m.Summary = "" // it went into the notification itself
		}
		return m, id, m.Validate()
	}, nil
}

type composeFunc func(to string, now time.Time) (mailbox.Message, string, error)

// messageText is the TEXT argument, or stdin when it is absent or "-".
func messageText(c *ucli.Command, env Env) (string, error) {
	switch {
	case c.NArg() > 1:
		return "", usagef("give the message as one argument (quote it) or on stdin, got %d arguments", c.NArg())
	case c.NArg() == 1 && c.Args().First() != "-":
		return c.Args().First(), nil
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

// typeFlags are the flags each --type reads; any other protocol flag is a
// mistake worth saying.
var typeFlags = map[string][]string{
	"":                               {},
	mailbox.TypeShutdownRequest:      {"request-id", "reason"},
	mailbox.TypeShutdownApproved:     {"request-id"},
	mailbox.TypeShutdownRejected:     {"request-id", "reason"},
	mailbox.TypePlanApprovalResponse: {"request-id", "approve", "reject", "feedback", "mode"},
	mailbox.TypePermissionResponse:   {"request-id", "allow", "deny", "input", "reason"},
	mailbox.TypeModeSetRequest:       {"mode"},
	mailbox.TypeIdle:                 {"idle-reason", "task-id", "completed-status", "reason"},
	mailbox.TypeTaskAssignment:       {"task-id", "subject", "description"},
}

var sendTypes = mailbox.Composable

var protocolFlags = []string{"request-id", "reason", "approve", "reject", "feedback", "allow", "deny",
	"input", "mode", "idle-reason", "task-id", "completed-status", "subject", "description"}

func checkTypeFlags(c *ucli.Command) error {
	kind := c.String("type")
	allowed, ok := typeFlags[kind]
	if !ok {
		return usagef("unknown --type %q: use one of %s", kind, strings.Join(sendTypes, ", "))
	}
	// One pass over what was given: c.IsSet per flag walks every flag's
	// names, which a send would pay on each of these. None has an alias.
	given := c.LocalFlagNames()
	for _, f := range protocolFlags {
		if slices.Contains(given, f) && !slices.Contains(allowed, f) {
			if kind == "" {
				return usagef("--%s belongs to a protocol message: add --type (see paneteam send --help)", f)
			}
			return usagef("--%s is not part of a %s message (it takes: --%s)", f, kind, strings.Join(allowed, ", --"))
		}
	}
	for _, pair := range [][2]string{{"approve", "reject"}, {"allow", "deny"}} {
		if c.Bool(pair[0]) && c.Bool(pair[1]) {
			return usagef("give --%s or --%s, not both", pair[0], pair[1])
		}
	}
	return nil
}

// protocolBuilder turns the flags into a mailbox.Draft per recipient.
func protocolBuilder(c *ucli.Command, t team.Team, cfg *team.Config, from, kind string) (func(string, time.Time) (any, string, error), error) {
	d := mailbox.Draft{
		Type: kind, From: from, RequestID: c.String("request-id"), Reason: c.String("reason"),
		Feedback: c.String("feedback"), Mode: c.String("mode"), IdleReason: c.String("idle-reason"),
		TaskID: c.String("task-id"), CompletedStatus: c.String("completed-status"), Summary: c.String("summary"),
		Subject: c.String("subject"), Description: c.String("description"),
	}
	for _, s := range []string{d.RequestID, d.Reason, d.Feedback, d.Summary, d.Subject, d.Description, d.TaskID} {
		if !utf8.ValidString(s) {
			return nil, fmt.Errorf("a flag value is not valid UTF-8: convert it first (for example with iconv -t UTF-8)")
		}
	}
	switch {
	case c.Bool("approve") || c.Bool("allow"):
		d.Approve = ptr(true)
	case c.Bool("reject") || c.Bool("deny"):
		d.Approve = ptr(false)
	}
	if m := cfg.Member(from); m != nil && kind == mailbox.TypeShutdownApproved {
		d.PaneID, d.BackendType = m.TmuxPaneID, m.BackendType
	}
	if kind == mailbox.TypePermissionResponse && d.Approve != nil && *d.Approve {
		in, err := permissionInput(c, t, from, d.RequestID)
		if err != nil {
			return nil, err
		}
		d.Input = in
	}
	// Check the draft once up front, so a bad flag fails before any write.
	probe := d
	probe.To, probe.Now = "probe", time.Now()
	if _, _, err := mailbox.Compose(probe); err != nil {
		return nil, usagef("%v", err)
	}
	return func(to string, now time.Time) (any, string, error) {
		d := d
		d.To, d.Now = to, now
		return mailbox.Compose(d)
	}, nil
}

// permissionInput is --input, else the input of the permission_request
// with that id in the sender's inbox or archive: allowing a call runs the
// tool with updated_input, so guessing it is not an option.
func permissionInput(c *ucli.Command, t team.Team, from, id string) (json.RawMessage, error) {
	if s := c.String("input"); s != "" {
		if !json.Valid([]byte(s)) {
			return nil, usagef("--input is not valid JSON: give the tool input as a JSON object")
		}
		return json.RawMessage(s), nil
	}
	if id == "" {
		return nil, nil // Compose names the missing --request-id
	}
	in := mailbox.New(t.InboxPath(from), lockOpts(c))
	cur, err := in.ReadAll()
	if err != nil {
		return nil, err
	}
	old, err := in.Archived()
	if err != nil {
		return nil, err
	}
	for _, m := range append(cur, old...) {
		p, ok := mailbox.Parse(m.Text)
		if r, isReq := p.Value.(*mailbox.PermissionRequest); ok && isReq && r.RequestID == id {
			return r.Input, nil
		}
	}
	return nil, fmt.Errorf("no permission_request %q in %s's inbox or archive: pass --input JSON with the tool input to allow", id, from)
}

func ptr[T any](v T) *T { return &v }

// sendLines sends each line of stdin as its own message to every
// recipient, in order, each on disk before the next line is read. It stops
// at the first line it cannot deliver and says how far it got. SIGINT or
// SIGTERM ends it between lines (a line already read is still delivered),
// the normal way to stop a stream that never closes.
func sendLines(ctx context.Context, c *ucli.Command, env Env, p *post.Post, to []string) error {
	if c.String("type") != "" {
		return usagef("--lines sends plain text; protocol messages (--type) are sent one per command")
	}
	if c.NArg() > 1 || (c.NArg() == 1 && c.Args().First() != "-") {
		return usagef("--lines reads stdin; give no TEXT (or \"-\")")
	}
	inboxes := make([]*mailbox.Inbox, len(to))
	for i, name := range to {
		inboxes[i] = p.Inbox(name)
	}
	summary := c.String("summary")
	jsonOut := json.NewEncoder(env.Stdout)
	jsonOut.SetEscapeHTML(false)
	lines, stop := readLines(env.Stdin)
	defer stop()
	delivered := 0
	for n := 1; ; n++ {
		var l readLine
		select {
		case l = <-lines:
		case <-ctx.Done():
			return nil
		}
		if l.err != nil && !errors.Is(l.err, io.EOF) {
			return fmt.Errorf("read line %d from stdin: %w (%s)", n, l.err, deliveredSoFar(delivered))
		}
		text := strings.TrimSuffix(strings.TrimSuffix(l.text, "\n"), "\r")
		if strings.TrimSpace(text) != "" {
			m := p.Message(mailbox.Message{Text: text, Summary: summary})
			if err := m.Validate(); err != nil {
				return fmt.Errorf("line %d: %w (%s)", n, err, deliveredSoFar(delivered))
			}
			for i, in := range inboxes {
				// A line read is delivered even if a signal comes meanwhile.
				if err := in.Send(context.WithoutCancel(ctx), m); err != nil {
					if i > 0 {
						return fmt.Errorf("line %d: send to %s: %w (it reached %s; %s)", n, to[i], err, strings.Join(to[:i], ", "), deliveredSoFar(delivered))
					}
					return fmt.Errorf("line %d: send to %s: %w (%s)", n, to[i], err, deliveredSoFar(delivered))
				}
				if c.Bool("json") {
					if err := jsonOut.Encode(delivery{To: to[i], Message: m}); err != nil {
						return fmt.Errorf("print delivery: %w", err)
					}
				}
			}
			delivered++
		}
		if errors.Is(l.err, io.EOF) {
			return nil
		}
	}
}

type readLine struct {
	text string
	err  error // io.EOF with the last (possibly empty) text
}

// readLines reads r line by line in the background, so that waiting for
// the next line can be given up; stop ends the reading.
func readLines(r io.Reader) (<-chan readLine, func()) {
	out := make(chan readLine)
	done := make(chan struct{})
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			text, err := br.ReadString('\n')
			select {
			case out <- readLine{text, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, func() { close(done) }
}

func deliveredSoFar(n int) string {
	if n == 1 {
		return "the 1 message before it was delivered"
	}
	return fmt.Sprintf("the %d messages before it were delivered", n)
}

// callerOf is the process as the post package sees it: its environment,
// its warnings on stderr.
func callerOf(env Env) post.Caller {
	return post.Caller{Getenv: env.Getenv, Warn: backendEnv(env).Warn}
}

// explicitFrom is --from as the person typed it: "" when not given or
// when it is $PANETEAM_AGENT (the flag's default).
func explicitFrom(c *ucli.Command, env Env) string {
	if from := c.String("from"); c.IsSet("from") && from != env.Getenv("PANETEAM_AGENT") {
		return from
	}
	return ""
}

// postError shows a post refused for what was asked as a wrong call.
func postError(err error) error {
	var u *post.UsageError
	if errors.As(err, &u) {
		return usageError{err}
	}
	return err
}

// The signing rules (post.Caller) for the commands that sign.
func actsAsLead(env Env) bool           { return callerOf(env).ActsAsLead() }
func leadSigner(env Env) mailbox.Signer { return callerOf(env).Signer() }
func checkSignable(env Env, t team.Team, cfg *team.Config, names []string, from string) error {
	return callerOf(env).CheckSignable(t, cfg, names, from)
}
