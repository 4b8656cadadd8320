package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func inboxCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "inbox",
		Usage: "list the messages in an agent's inbox (or its archive of read messages)",
		Description: `Lists teams/<team>/inboxes/<name>.json for people: sender, time and text,
in colour with relative times on a terminal, plain when piped or with
NO_COLOR set. --json prints the raw messages for scripts.

    paneteam inbox --team review                      # the lead's inbox
    paneteam inbox --team review --name alice --unread --mark-read
    paneteam inbox --team review --archived --last 20 # read messages, moved aside

--mark-read marks exactly the messages shown, never one that arrived while
they were printed. Read messages move to <name>.archive.jsonl beside the
inbox on paneteam's next write, so the inbox stays small; --archived shows
them.`,
		Flags: []ucli.Flag{
			teamFlag(),
			nameFlag(),
			&ucli.BoolFlag{Name: "unread", Usage: "only messages not read yet"},
			&ucli.BoolFlag{Name: "mark-read", Usage: "mark the messages shown as read"},
			&ucli.BoolFlag{Name: "archived", Usage: "show the archive of read messages instead of the inbox"},
			&ucli.IntFlag{Name: "last", Usage: "only the last N messages (0: all)"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readInboxOptions(c)
			if err != nil {
				return err
			}
			return runInbox(ctx, env, o)
		},
	}
}

// inboxOptions are inbox's flags.
type inboxOptions struct {
	Scope    teamScope
	Name     string // --name: "" for $PANETEAM_AGENT, else the lead's
	Unread   bool
	MarkRead bool
	Archived bool
	Last     int
	JSON     bool
}

func readInboxOptions(c *ucli.Command) (inboxOptions, error) {
	if c.NArg() > 0 {
		return inboxOptions{}, usagef("inbox takes no arguments (got %q): name the inbox with --name", c.Args().First())
	}
	o := inboxOptions{Scope: readTeamScope(c), Name: readFlags(c).String("name"), Unread: readFlags(c).Bool("unread"), MarkRead: readFlags(c).Bool("mark-read"),
		Archived: readFlags(c).Bool("archived"), Last: readFlags(c).Int("last"), JSON: readFlags(c).Bool("json")}
	if o.Archived && (o.Unread || o.MarkRead) {
		return o, usagef("--archived holds read messages only: drop --unread and --mark-read")
	}
	if o.Last < 0 {
		return o, usagef("--last must be 0 (all) or more")
	}
	return o, nil
}

func runInbox(ctx context.Context, env Env, o inboxOptions) error {
	t, cfg, name, err := openInbox(ctx, env, o.Scope, o.Name, o.MarkRead)
	if err != nil {
		return err
	}
	in := post.OpenInbox(t, cfg, name, o.Scope.Lock)
	post.Settle(ctx, in)
	var msgs []mailbox.Message
	if o.Archived {
		msgs, err = in.Archived()
	} else {
		var skipped []*mailbox.SkippedEntry
		msgs, skipped, err = in.Entries()
		for _, sk := range skipped {
			warn(env, sk)
		}
	}
	if err != nil {
		return err
	}
	if o.Unread {
		msgs = post.Unread(msgs)
	}
	if n := o.Last; n > 0 && len(msgs) > n {
		msgs = msgs[len(msgs)-n:]
	}
	if err := listMessages(env, o.JSON, name, msgs, o.Archived); err != nil {
		return err
	}
	if o.MarkRead && len(msgs) > 0 {
		if _, err := in.MarkRead(ctx, msgs); err != nil {
			return fmt.Errorf("mark %s's messages read: %w", name, err)
		}
	}
	return nil
}

// nameFlag names whose inbox a command reads.
func nameFlag() ucli.Flag {
	return &ucli.StringFlag{
		Name:    "name",
		Aliases: []string{"n"},
		Usage:   "whose inbox (default: $PANETEAM_AGENT, else team-lead)",
		Sources: ucli.EnvVars("PANETEAM_AGENT"),
	}
}

// openInbox opens the team and names the inbox that inbox and
// inbox-watch read (--name, else the lead's: post.InboxName), refusing
// --mark-read of an inbox Claude Code reads itself (post.CheckMarkRead).
func openInbox(ctx context.Context, env Env, s teamScope, named string, markRead bool) (team.Team, *team.Config, string, error) {
	t, cfg, err := s.open(ctx, env)
	if err != nil {
		return t, nil, "", err
	}
	name, err := post.InboxName(t, cfg, named)
	if err != nil {
		return t, nil, "", postError(err)
	}
	if markRead {
		var mr *post.MarkReadError
		if err := post.CheckMarkRead(cfg, name); errors.As(err, &mr) {
			if mr.Lead {
				return t, nil, "", usagef("Claude Code leads team %s and reads team-lead's inbox itself: --mark-read would hide those messages from it; drop --mark-read", mr.Team)
			}
			return t, nil, "", usagef("%s is Claude Code's own teammate and reads its inbox itself: --mark-read would hide those messages from it; drop --mark-read", mr.Name)
		}
	}
	return t, cfg, name, nil
}

func listMessages(env Env, asJSON bool, name string, msgs []mailbox.Message, archived bool) error {
	if asJSON {
		if msgs == nil {
			msgs = []mailbox.Message{}
		}
		return printJSON(env.Stdout, msgs)
	}
	if len(msgs) == 0 {
		if env.StdoutTTY {
			what := "inbox"
			if archived {
				what = "archive"
			}
			fmt.Fprintf(env.Stdout, "no messages in %s's %s\n", name, what)
		}
		return nil
	}
	st := styleFor(env)
	now := time.Now()
	for _, m := range msgs {
		writeMessage(env.Stdout, st, m, now)
	}
	return nil
}

// style is how messages are shown to people, decided once from the
// terminal and NO_COLOR.
type style struct{ color bool }

func styleFor(env Env) style { return style{color: env.Color()} }

// ansiColor is the ANSI colour of a team colour (docs/PROTOCOL.md §2),
// "" for none; a switch, so that no paneteam start builds a map of them.
func ansiColor(name string) string {
	switch name {
	case "red":
		return "31"
	case "green":
		return "32"
	case "yellow":
		return "33"
	case "blue":
		return "34"
	case "purple":
		return "35"
	case "cyan":
		return "36"
	case "orange":
		return "38;5;208"
	case "pink":
		return "38;5;205"
	}
	return ""
}

func (s style) paint(code, text string) string {
	if !s.color || code == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// writeMessage prints one message: a header line (time, sender, unread
// mark, summary), then the text indented. A terminal gets colour and
// relative times; a pipe gets exact timestamps.
func writeMessage(w io.Writer, s style, m mailbox.Message, now time.Time) {
	when := visible.Line(m.Timestamp)
	if s.color {
		when = relTime(m.Time(), now)
	}
	who := "1"
	if c := ansiColor(m.Color); c != "" {
		who += ";" + c
	}
	// From, summary and text are the sender's to choose: shown, never
	// sent to the terminal as escape sequences (visible.Line).
	head := s.paint("2", when) + "  " + s.paint(who, visible.Line(m.From))
	if !m.Read {
		head += "  " + s.paint("1;33", "(unread)")
	}
	if m.Summary != "" {
		head += "  " + s.paint("3", visible.Line(m.Summary))
	}
	fmt.Fprintln(w, head)
	body, color := m.Text, ""
	if p, ok := mailbox.Parse(m.Text); ok {
		body, color = describe(p), "36"
	}
	for _, line := range strings.Split(body, "\n") {
		line = visible.Line(line)
		if color != "" {
			line = s.paint(color, line)
		}
		fmt.Fprintln(w, "    "+line)
	}
}

// describe renders a protocol message as a sentence.
func describe(p mailbox.Protocol) string {
	switch v := p.Value.(type) {
	case *mailbox.IdleNotification:
		s := "[idle: " + orDefault(v.IdleReason, "available") + "]"
		if v.CompletedTaskID != "" {
			s += fmt.Sprintf(" finished task %s (%s)", v.CompletedTaskID, orDefault(v.CompletedStatus, "resolved"))
		}
		return joinNonEmpty(s, v.Summary, v.FailureReason)
	case *mailbox.ShutdownRequest:
		return joinNonEmpty("[shutdown request "+v.RequestID+"]", v.Reason)
	case *mailbox.ShutdownApproved:
		return "[shutdown approved " + v.RequestID + "]"
	case *mailbox.ShutdownRejected:
		return joinNonEmpty("[shutdown rejected "+v.RequestID+"]", v.Reason)
	case *mailbox.PlanApprovalRequest:
		return joinNonEmpty("[plan approval request "+v.RequestID+"] "+v.PlanFilePath, v.PlanContent)
	case *mailbox.PlanApprovalResponse:
		verdict := "rejected"
		if v.Approved {
			verdict = "approved"
		}
		mode := ""
		if v.PermissionMode != "" {
			mode = "permission mode: " + v.PermissionMode
		}
		return joinNonEmpty("[plan "+verdict+" "+v.RequestID+"]", mode, v.Feedback)
	case *mailbox.PermissionRequest:
		return joinNonEmpty("[permission request "+v.RequestID+"] "+v.ToolName, v.Description)
	case *mailbox.PermissionResponse:
		if v.Subtype == "success" {
			return "[permission allowed " + v.RequestID + "]"
		}
		return joinNonEmpty("[permission denied "+v.RequestID+"]", v.Error)
	case *mailbox.ModeSetRequest:
		return "[set permission mode: " + v.Mode + "]"
	case *mailbox.TaskAssignment:
		return joinNonEmpty("[task "+v.TaskID+" assigned by "+v.AssignedBy+"] "+v.Subject, v.Description)
	}
	return "[" + p.Type + "] " + string(p.Raw)
}

func joinNonEmpty(head string, rest ...string) string {
	out := head
	for _, r := range rest {
		if r != "" {
			out += "\n" + r
		}
	}
	return out
}
