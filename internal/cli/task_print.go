package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/paneteam/paneteam/internal/core/tasks"
	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// taskError is how the task rule set's refusals reach the person: an
// update naming nothing is a usage mistake, a notice that could not be
// posted for a reason of the caller's settings too.
func taskError(err error) error {
	if errors.Is(err, tasks.ErrNothingToChange) {
		return usagef("task update needs something to change: --status, --owner, --subject, --description, --active-form, --note or --add-blocked-by")
	}
	return postError(err)
}

// readTasks lists the tasks and warns on stderr about files it skipped.
func readTasks(env Env, b *tasks.Board) ([]*team.Task, map[string]*team.Task, error) {
	all, skipped, err := b.List().List()
	if err != nil {
		return nil, nil, err
	}
	for _, sk := range skipped {
		warn(env, sk)
	}
	return all, team.ByID(all), nil
}

// printChanged reports a task a command changed: one line for people, the
// task object for scripts.
func printChanged(env Env, b *tasks.Board, asJSON bool, t *team.Task, what string) error {
	if asJSON {
		return printTask(env, b, t)
	}
	owner := "owner " + cell(t.Owner)
	if t.Owner == "" {
		owner = "no owner"
	}
	_, err := fmt.Fprintf(env.Stdout, "task %s %s: %s, %s\n", cell(t.ID), what, cell(t.Status), owner)
	return err
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

func printTasksJSON(env Env, shown []*team.Task, byID map[string]*team.Task) error {
	out := make([]json.RawMessage, 0, len(shown))
	for _, t := range shown {
		raw, err := taskJSON(t, byID)
		if err != nil {
			return err
		}
		out = append(out, raw)
	}
	return printJSON(env.Stdout, out)
}

// printTask prints one task as JSON, with "blocked" worked out from the
// current list.
func printTask(env Env, b *tasks.Board, t *team.Task) error {
	all, _, err := b.List().List()
	if err != nil {
		return err
	}
	raw, err := taskJSON(t, team.ByID(all))
	if err != nil {
		return err
	}
	return printJSON(env.Stdout, raw)
}

// The task files are any teammate's to write: every field a table or the
// detail shows is shown by the rule for someone else's text (cell,
// visible.Block), never sent to the terminal raw.

func printTaskTable(env Env, shown []*team.Task, byID map[string]*team.Task) error {
	if len(shown) == 0 {
		_, err := fmt.Fprintln(env.Stdout, "no tasks")
		return err
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATUS\tOWNER\tSUBJECT\tBLOCKED BY")
	for _, t := range shown {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", cell(t.ID), cell(t.Status), orDash(cell(t.Owner)), cell(t.Subject),
			orDash(cells(team.OpenBlockers(t, byID))))
	}
	return w.Flush()
}

func printTaskDetail(env Env, t *team.Task, byID map[string]*team.Task) error {
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "id:\t%s\n", cell(t.ID))
	fmt.Fprintf(w, "subject:\t%s\n", cell(t.Subject))
	fmt.Fprintf(w, "status:\t%s\n", cell(t.Status))
	fmt.Fprintf(w, "owner:\t%s\n", orDash(cell(t.Owner)))
	if t.ActiveForm != "" {
		fmt.Fprintf(w, "active form:\t%s\n", cell(t.ActiveForm))
	}
	if note := tasks.NoteOf(t); note != "" {
		fmt.Fprintf(w, "note:\t%s\n", cell(note))
	}
	fmt.Fprintf(w, "blocked by:\t%s\n", orDash(cells(team.OpenBlockers(t, byID))))
	fmt.Fprintf(w, "blocks:\t%s\n", orDash(cells(t.Blocks)))
	if err := w.Flush(); err != nil {
		return err
	}
	if t.Description != "" {
		_, err := fmt.Fprintf(env.Stdout, "\n%s\n", visible.Block(t.Description))
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

// cell is a text someone else wrote, for one cell of a table or one line
// of a detail: its runs of spaces, tabs and line breaks made one space, so
// a row stays one row, then shown by visible.Line, so nothing in it
// reaches the terminal raw (a carriage return, which could overwrite
// the row, included).
func cell(s string) string {
	return visible.Line(strings.Join(strings.FieldsFunc(s, isBlank), " "))
}

// cells is a list of such texts, comma-separated.
func cells(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = cell(s)
	}
	return strings.Join(out, ", ")
}

// isBlank is what cell folds into a space: ASCII spaces, tabs and line
// breaks only. A carriage return, or any other control character, is
// kept for visible.Line to show.
func isBlank(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }
