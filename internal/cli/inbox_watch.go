package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/mailbox"
)

// plainType is what --type matches for a message that is not a protocol
// message.
const plainType = "message"

func inboxWatchCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "inbox-watch",
		Usage: "print each new message of an inbox as it arrives",
		Description: `Prints the unread messages of teams/<team>/inboxes/<name>.json, then each
new message as it arrives, once, until interrupted. It follows file-system
events on the inbox folder (with a polling safety net), so it keeps working
when the inbox is created later, replaced by paneteam, rewritten in place by
Claude Code, or moved aside.

    paneteam inbox-watch --team review                     # the lead's inbox
    paneteam inbox-watch --team review --json | jq -r .text
    paneteam inbox-watch --team review --once --mark-read  # wait for mail, take it
    paneteam inbox-watch --team review --type idle_notification \
        --exec 'notify-send "$PANETEAM_FROM is idle"'

--json prints one JSON object per line. --exec runs CMD with sh -c for each
message, the message as JSON on its stdin and $PANETEAM_FROM,
$PANETEAM_MESSAGE_TYPE set (data only: CMD is never built from a message,
so quote the variables, "$PANETEAM_FROM", and never eval them; a name
holding a character a terminal would act on comes in its shown $'…' form,
and the JSON has such characters as \uXXXX escapes); a message
whose command fails is reported and left unread. --mark-read marks exactly the messages printed (or whose
command succeeded), never one that arrived meanwhile. --type matches a
protocol message type, or "message" for plain text.`,
		Flags: []ucli.Flag{
			teamFlag(),
			nameFlag(),
			jsonFlag(),
			&ucli.BoolFlag{Name: "mark-read", Usage: "mark each message read once it is printed (or its --exec succeeded)"},
			&ucli.BoolFlag{Name: "once", Usage: "exit after the first batch of messages (waiting for one if none is unread)"},
			&ucli.StringFlag{Name: "exec", Usage: "run `CMD` (sh -c) per message, with the message as JSON on stdin"},
			&ucli.StringFlag{Name: "from", Usage: "only messages from this sender"},
			&ucli.StringFlag{Name: "type", Usage: `only messages of this protocol type ("message": plain text)`},
			&ucli.DurationFlag{Name: "poll", Usage: "safety-net re-read interval when no file-system event comes", Value: mailbox.DefaultPoll},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readInboxWatchOptions(c)
			if err != nil {
				return err
			}
			return runInboxWatch(ctx, env, o)
		},
	}
}

// inboxWatchOptions are inbox-watch's flags.
type inboxWatchOptions struct {
	Scope    teamScope
	Name     string // --name: "" for $PANETEAM_AGENT, else the lead's
	JSON     bool
	MarkRead bool
	Once     bool
	Exec     string
	From     string // only messages from this sender
	Type     string // only messages of this type (plainType: plain text)
	Poll     time.Duration
}

func readInboxWatchOptions(c *ucli.Command) (inboxWatchOptions, error) {
	if c.NArg() > 0 {
		return inboxWatchOptions{}, usagef("inbox-watch takes no arguments (got %q): name the inbox with --name", c.Args().First())
	}
	o := inboxWatchOptions{Scope: readTeamScope(c), Name: readFlags(c).String("name"), JSON: readFlags(c).Bool("json"), MarkRead: readFlags(c).Bool("mark-read"),
		Once: readFlags(c).Bool("once"), Exec: readFlags(c).String("exec"), From: readFlags(c).String("from"), Type: readFlags(c).String("type"), Poll: readFlags(c).Duration("poll")}
	if o.Poll <= 0 {
		return o, usagef("--poll must be positive, such as 1s")
	}
	return o, nil
}

func runInboxWatch(ctx context.Context, env Env, o inboxWatchOptions) error {
	t, cfg, name, err := openInbox(ctx, env, o.Scope, o.Name, o.MarkRead)
	if err != nil {
		return err
	}
	// A missing inbox folder (writers create it lazily) is waited
	// for by Watch, never created here: see mailbox.Watch.
	w := &inboxWatch{env: env, ctx: ctx, o: o, in: post.OpenInbox(t, cfg, name, o.Scope.Lock), style: styleFor(env)}
	err = w.in.Watch(ctx, mailbox.WatchOptions{Poll: o.Poll, OnError: w.warn}, w.deliver)
	if errors.Is(err, context.Canceled) {
		return nil // interrupted: the normal way to stop watching
	}
	return err
}

type inboxWatch struct {
	env      Env
	ctx      context.Context // the run's, for marking read and --exec
	o        inboxWatchOptions
	in       *mailbox.Inbox
	style    style
	lastWarn string
}

// deliver handles one batch from Watch: filter, print or run, then mark
// read exactly what was handled.
func (w *inboxWatch) deliver(batch []mailbox.Message) error {
	var handled []mailbox.Message
	for _, m := range batch {
		if !w.wanted(m) {
			continue
		}
		ok, err := w.handle(m)
		if err != nil {
			return err
		}
		if ok {
			handled = append(handled, m)
		}
	}
	if w.o.MarkRead && len(handled) > 0 {
		if _, err := w.in.MarkRead(w.ctx, handled); err != nil {
			return fmt.Errorf("mark printed messages read: %w", err)
		}
	}
	if w.o.Once && len(handled) > 0 {
		return mailbox.ErrStop
	}
	return nil
}

func (w *inboxWatch) wanted(m mailbox.Message) bool {
	if f := w.o.From; f != "" && !strings.EqualFold(f, m.From) {
		return false
	}
	if k := w.o.Type; k != "" && k != messageType(m) {
		return false
	}
	return true
}

func messageType(m mailbox.Message) string {
	if p, ok := mailbox.Parse(m.Text); ok {
		return p.Type
	}
	return plainType
}

// handle prints m or runs --exec with it, and reports whether it was
// handled. Only a failure to write our own output ends the watch.
func (w *inboxWatch) handle(m mailbox.Message) (bool, error) {
	// One line of JSON, on stdout or on --exec's stdin, with nothing in it
	// a terminal would act on (visible.JSON): a command that prints its
	// input (cat, jq) prints it safely, and a parser reads the same text.
	line, err := json.Marshal(m)
	if err != nil {
		return false, err
	}
	line = visible.JSON(line)
	if cmd := w.o.Exec; cmd != "" {
		return w.run(cmd, m, line), nil
	}
	if w.o.JSON {
		_, err = fmt.Fprintf(w.env.Stdout, "%s\n", line)
		return err == nil, err
	}
	writeMessage(w.env.Stdout, w.style, m, time.Now())
	return true, nil
}

func (w *inboxWatch) run(cmdline string, m mailbox.Message, line []byte) bool {
	cmd := exec.CommandContext(w.ctx, "sh", "-c", cmdline)
	cmd.Stdin = bytes.NewReader(append(line, '\n'))
	cmd.Stdout, cmd.Stderr = w.env.Stdout, w.env.Stderr
	// The variables are the sender's and the type's shown forms
	// (visible.Line): a name is printed as it is, one holding a character
	// a terminal would act on (or a NUL, which no environment can hold)
	// in its quoted $'…' form. The exact text is in the JSON on stdin.
	cmd.Env = append(w.env.Environ(), "PANETEAM_FROM="+visible.Line(m.From), "PANETEAM_MESSAGE_TYPE="+visible.Line(messageType(m)))
	if err := cmd.Run(); err != nil {
		if w.ctx.Err() == nil {
			fmt.Fprintf(w.env.Stderr, "paneteam: --exec failed for the message from %s at %s (%v); it stays unread\n",
				visible.Line(m.From), visible.Line(m.Timestamp), err)
		}
		return false
	}
	return true
}

// warn reports a problem the watch survives, once until it changes.
func (w *inboxWatch) warn(err error) {
	if msg := err.Error(); msg != w.lastWarn {
		w.lastWarn = msg
		fmt.Fprintf(w.env.Stderr, "paneteam: warning: %s\n", visible.Line(msg))
	}
}
