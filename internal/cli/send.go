package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func sendCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "send",
		Usage:     "append a message to a teammate's inbox; exits 0 only once it is on disk",
		ArgsUsage: "[TEXT | -]",
		Description: `Writes one message to teams/<team>/inboxes/<name>.json under Claude Code's
lock, atomically. TEXT absent or "-" reads the message from stdin:

    git diff | paneteam send --team review --to reviewer -

A recipient that is not a member of the team is refused.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "to", Usage: "recipient's member name"},
			&ucli.StringFlag{Name: "from", Usage: "sender's name", EnvVars: []string{"PANETEAM_AGENT"}, Value: team.LeadName},
			&ucli.StringFlag{Name: "summary", Usage: "a short preview shown by receivers"},
			jsonFlag(),
		},
		Action: func(c *ucli.Context) error {
			t, cfg, err := openTeam(c, env)
			if err != nil {
				return err
			}
			to := c.String("to")
			if to == "" {
				return usagef("no recipient: pass --to NAME (members: %s)", strings.Join(cfg.MemberNames(), ", "))
			}
			m := cfg.Member(to)
			if m == nil {
				return fmt.Errorf("%q is not a member of team %s (members: %s)", to, t.Name, strings.Join(cfg.MemberNames(), ", "))
			}
			text, err := messageText(c, env)
			if err != nil {
				return err
			}
			msg := mailbox.Message{
				From:      c.String("from"),
				Text:      text,
				Summary:   c.String("summary"),
				Timestamp: mailbox.Timestamp(time.Now()),
			}
			if s := cfg.Member(msg.From); s != nil {
				msg.Color = s.Color
			}
			if err := mailbox.New(t.InboxPath(m.Name), lockOpts(c)).Append(c.Context, msg); err != nil {
				return fmt.Errorf("send to %s: %w", m.Name, err)
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, msg)
			}
			return nil
		},
	}
}

// messageText is the TEXT argument, or stdin when it is absent or "-".
func messageText(c *ucli.Context, env Env) (string, error) {
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
