package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/protocol/jsonx"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// taskSession is what every task subcommand works with: the team, its
// config (for member checks) and its task list.
type taskSession struct {
	env  Env
	team team.Team
	cfg  *team.Config
	list *team.TaskList
}

func openTasks(ctx context.Context, c *ucli.Command, env Env) (*taskSession, error) {
	t, cfg, err := openTeam(ctx, c, env)
	if err != nil {
		return nil, err
	}
	return &taskSession{env: env, team: t, cfg: cfg, list: t.Tasks(lockOpts(c))}, nil
}

// member resolves an owner given on the command line to a member's stored
// name ("" stays ""). A member's agent id (name@team) is accepted too.
func (s *taskSession) member(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	if m := s.cfg.Member(name); m != nil {
		return m.Name, nil
	}
	if n, tm, ok := strings.Cut(name, "@"); ok && strings.EqualFold(tm, s.team.Name) {
		if m := s.cfg.Member(n); m != nil {
			return m.Name, nil
		}
	}
	return "", fmt.Errorf("%q is not a member of team %s (members: %s): give one of those names",
		name, s.team.Name, strings.Join(s.cfg.MemberNames(), ", "))
}

// readAll lists the tasks and warns on stderr about files it skipped.
func (s *taskSession) readAll() ([]*team.Task, map[string]*team.Task, error) {
	tasks, skipped, err := s.list.List()
	if err != nil {
		return nil, nil, err
	}
	for _, sk := range skipped {
		fmt.Fprintf(s.env.Stderr, "paneteam: warning: %v\n", sk)
	}
	return tasks, team.ByID(tasks), nil
}

// notifyAssignment sends the new owner a task_assignment message, as
// Claude Code does when a task gets an owner (docs/PROTOCOL.md
// §8). The task is already assigned; a failure here says so.
func (s *taskSession) notifyAssignment(ctx context.Context, c *ucli.Command, t *team.Task, from string) error {
	caller := callerOf(s.env)
	if !c.IsSet("from") {
		from = "" // --from's default: $PANETEAM_AGENT, else team-lead
	}
	from, err := caller.Sender(s.cfg, from)
	if err != nil {
		return usageError{err}
	}
	p, err := caller.Open(s.team, s.cfg, lockOpts(c), from, []string{t.Owner}, "")
	if err != nil {
		return postError(err)
	}
	now := time.Now()
	text, err := mailbox.Text(mailbox.TaskAssignment{
		Type:        mailbox.TypeTaskAssignment,
		TaskID:      t.ID,
		Subject:     t.Subject,
		Description: t.Description,
		AssignedBy:  from,
		Timestamp:   mailbox.Timestamp(now),
	})
	if err != nil {
		return err
	}
	if _, err := p.Send(ctx, t.Owner, mailbox.Message{Text: text, Timestamp: mailbox.Timestamp(now)}); err != nil {
		return fmt.Errorf("task %s is assigned to %s, but the task_assignment message was not delivered: %w", t.ID, t.Owner, err)
	}
	return nil
}

// taskJSON is a task as stored plus the computed "blocked" flag.
func taskJSON(t *team.Task, byID map[string]*team.Task) (json.RawMessage, error) {
	b, err := jsonx.Marshal(t)
	if err != nil {
		return nil, err
	}
	blocked := len(team.OpenBlockers(t, byID)) > 0
	b = bytes.TrimSuffix(bytes.TrimSpace(b), []byte("}"))
	return append(b, fmt.Sprintf(`,"blocked":%t}`, blocked)...), nil
}

func (s *taskSession) printTasksJSON(tasks []*team.Task, byID map[string]*team.Task) error {
	out := make([]json.RawMessage, 0, len(tasks))
	for _, t := range tasks {
		raw, err := taskJSON(t, byID)
		if err != nil {
			return err
		}
		out = append(out, raw)
	}
	return printJSON(s.env.Stdout, out)
}

// printTask prints one task as JSON, with "blocked" worked out from the
// current list.
func (s *taskSession) printTask(t *team.Task) error {
	tasks, _, err := s.list.List()
	if err != nil {
		return err
	}
	raw, err := taskJSON(t, team.ByID(tasks))
	if err != nil {
		return err
	}
	return printJSON(s.env.Stdout, raw)
}

func (s *taskSession) printTable(tasks []*team.Task, byID map[string]*team.Task) error {
	if len(tasks) == 0 {
		_, err := fmt.Fprintln(s.env.Stdout, "no tasks")
		return err
	}
	w := tabwriter.NewWriter(s.env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATUS\tOWNER\tSUBJECT\tBLOCKED BY")
	for _, t := range tasks {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Status, orDash(t.Owner), oneLine(t.Subject),
			orDash(strings.Join(team.OpenBlockers(t, byID), ", ")))
	}
	return w.Flush()
}

func (s *taskSession) printDetail(t *team.Task, byID map[string]*team.Task) error {
	w := tabwriter.NewWriter(s.env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "id:\t%s\n", t.ID)
	fmt.Fprintf(w, "subject:\t%s\n", oneLine(t.Subject))
	fmt.Fprintf(w, "status:\t%s\n", t.Status)
	fmt.Fprintf(w, "owner:\t%s\n", orDash(t.Owner))
	if t.ActiveForm != "" {
		fmt.Fprintf(w, "active form:\t%s\n", oneLine(t.ActiveForm))
	}
	fmt.Fprintf(w, "blocked by:\t%s\n", orDash(strings.Join(team.OpenBlockers(t, byID), ", ")))
	fmt.Fprintf(w, "blocks:\t%s\n", orDash(strings.Join(t.Blocks, ", ")))
	if err := w.Flush(); err != nil {
		return err
	}
	if t.Description != "" {
		_, err := fmt.Fprintf(s.env.Stdout, "\n%s\n", t.Description)
		return err
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps a table row on one line whatever the text holds.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
