package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func demoCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "demo",
		Usage: "create a team in a temporary folder, exchange messages, clean up, narrating each step",
		Description: `Runs the whole file protocol end to end without touching your real
~/.claude: a temporary root is used unless --root is given, and the team is
removed at the end.`,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "keep", Usage: "leave the team's files in place at the end"},
		},
		Action: func(c *ucli.Context) error {
			root := c.String("root")
			if root == "" {
				tmp, err := os.MkdirTemp("", "paneteam-demo-")
				if err != nil {
					return fmt.Errorf("demo: %w", err)
				}
				if !c.Bool("keep") {
					defer os.RemoveAll(tmp)
				}
				root = tmp
			}
			return runDemo(c, env, root)
		},
	}
}

func runDemo(c *ucli.Context, env Env, root string) error {
	say := func(format string, a ...any) { fmt.Fprintf(env.Stdout, "==> "+format+"\n", a...) }
	pt := func(args ...string) (string, error) {
		cmd := exec.CommandContext(c.Context, env.Exe, append([]string{"--root", root}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("paneteam %v: %v: %s", args, err, errb.String())
		}
		return string(bytes.TrimSpace(out.Bytes())), nil
	}
	say("team root: %s", root)
	name, err := pt("team-create", "demo", "--description", "paneteam demo")
	if err != nil {
		return err
	}
	say("created team %q", name)
	t, _, err := team.Open(root, name)
	if err != nil {
		return err
	}
	for _, m := range []string{"alice", "bob"} {
		if _, err := t.Update(c.Context, lockOpts(c), func(cfg *team.Config) error {
			_, err := cfg.AddMember(team.Member{Name: m, Cwd: root, BackendType: team.BackendInProcess, TmuxPaneID: team.InProcessPaneID})
			return err
		}); err != nil {
			return err
		}
		say("added member %s", m)
	}
	for _, s := range []struct{ from, to, text string }{
		{"team-lead", "alice", "Please review the parser."},
		{"team-lead", "bob", "Please write the tests."},
		{"alice", "team-lead", "Parser reviewed: two nits."},
		{"bob", "team-lead", "Tests written."},
	} {
		if _, err := pt("send", "--team", name, "--from", s.from, "--to", s.to, s.text); err != nil {
			return err
		}
		say("%s -> %s: %s", s.from, s.to, s.text)
	}
	msgs, err := mailbox.New(t.InboxPath(team.LeadName), lockOpts(c)).ReadAll()
	if err != nil {
		return err
	}
	say("team-lead's inbox (%s) holds %d messages", filepath.Base(t.InboxPath(team.LeadName)), len(msgs))
	for _, m := range msgs {
		fmt.Fprintf(env.Stdout, "    %s: %s\n", m.From, m.Text)
	}
	if err := t.Delete(); err != nil {
		return err
	}
	say("team %s removed", name)
	return nil
}
