package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

// showRequestOrPaneCommand is 'show': a request in full (show ID), or a
// hidden teammate's pane brought back (show --name N). The two never
// clash, as a pane is named by a flag and a request by an argument.
func showRequestOrPaneCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "show",
		Usage:     "print a request in full (show ID), or bring a hidden teammate's pane back (show --name N)",
		ArgsUsage: "[REQUEST-ID]",
		Description: `With a request ID (any unique beginning of one, as listed by
'paneteam requests'): prints the whole request, the full tool input, the
whole plan, and whether it was answered. What the teammate wrote is shown,
never interpreted: a line holding control characters or escape sequences
is printed quoted as $'…' with them as escapes; plan lines stay lines.

    paneteam show perm-1767225600000-abc1234 --team review
    paneteam show plan_approval-17672256 --team review --json | jq -r .plan_content

Without an ID:
Moves a pane hidden with 'paneteam hide' back where a new teammate would
go (beside the lead inside tmux, into the private session outside) and
re-lays out the window.

    paneteam show --team review --name alice`,
		Flags: append(append([]ucli.Flag{teamFlag(), memberFlag("teammate to show")}, layoutFlags()...), jsonFlag(),
			&ucli.StringFlag{Name: "from", Usage: "with a request ID: only requests from this teammate"}),
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readShowOptions(c)
			if err != nil {
				return err
			}
			if o.RequestID == "" {
				return runShowPane(ctx, env, o)
			}
			return runShowRequest(ctx, env, o)
		},
	}
}

// showOptions are show's flags: a request ID with --json and --from, or
// a teammate with --layout and --lead-percent.
type showOptions struct {
	Member    memberScope
	Layout    layoutChoice
	RequestID string
	JSON      bool
	From      string // with a request ID: only requests from this teammate
}

func readShowOptions(c *ucli.Command) (showOptions, error) {
	o := showOptions{Member: readMemberScope(c), Layout: readLayout(c), JSON: readFlags(c).Bool("json"), From: readFlags(c).String("from")}
	if c.NArg() == 0 {
		// A wrong layout is refused before any file is read.
		if _, _, err := o.Layout.over(layout.Policy{}); err != nil {
			return o, err
		}
		return o, nil
	}
	if c.NArg() > 1 {
		return o, usagef("show takes one request ID, got %d arguments", c.NArg())
	}
	if readFlags(c).IsSet("name") {
		return o, usagef("give a request ID or --name (a hidden pane), not both")
	}
	o.RequestID = c.Args().First()
	return o, nil
}

// runShowPane brings the teammate's hidden pane back where a new teammate
// would go (backend.SetHidden), in the layout asked for over the team's.
func runShowPane(ctx context.Context, env Env, o showOptions) error {
	t, _, m, err := o.Member.open(ctx, env)
	if err != nil {
		return err
	}
	return backend.SetHidden(ctx, backendEnv(env), t, o.Member.Scope.Lock, m.Name, false, func(cfg *team.Config) (layout.Policy, bool, error) {
		return o.Layout.over(backend.TeamLayout(cfg))
	})
}

// runShowRequest prints a request in full, answered or not.
func runShowRequest(ctx context.Context, env Env, o showOptions) error {
	lead, err := openLead(ctx, o.Member.Scope, env)
	if err != nil {
		return err
	}
	ls, err := lead.List()
	if err != nil {
		return err
	}
	r, err := ls.Resolve(o.RequestID, o.From)
	// An answered request, or one whose teammate left, can still be shown.
	if err != nil && !errors.Is(err, approval.ErrAnswered) && !errors.Is(err, approval.ErrGone) {
		return err
	}
	v := shownRequest{Request: r, State: ls.State(r), Subject: approval.Subject(r)}
	if rec, ok := ls.Record(r); ok {
		v.Answer = &rec
	}
	if o.JSON {
		return printJSON(env.Stdout, v)
	}
	writeRequest(env.Stdout, v, time.Now())
	return nil
}

type shownRequest struct {
	approval.Request
	State   approval.State   `json:"state"`
	Subject string           `json:"subject"`
	Answer  *approval.Record `json:"answer,omitempty"`
}

func writeRequest(w io.Writer, v shownRequest, now time.Time) {
	r := v.Request
	field := func(name, value string) { fmt.Fprintf(w, "%-13s %s\n", name+":", value) }
	field("id", visible.Line(r.ID))
	field("teammate", visible.Line(r.From))
	field("kind", string(r.Kind))
	state := string(v.State)
	if a := v.Answer; a != nil {
		verdict := "denied"
		if a.Approved {
			verdict = "approved"
		}
		state += " (" + verdict + " at " + a.At + ")"
	}
	field("state", state)
	field("received", visible.Line(r.Timestamp)+" ("+relTime(r.Time, now)+")")
	switch r.Kind {
	case approval.KindPermission:
		field("tool", visible.Line(r.ToolName))
		field("tool_use_id", visible.Line(r.ToolUseID))
		field("description", visible.Line(r.Description))
		var in struct {
			Command *string `json:"command"`
		}
		if r.ToolName == "Bash" && json.Unmarshal(r.Input, &in) == nil && in.Command != nil {
			fmt.Fprintln(w, "command:")
			block(w, visible.Block(*in.Command))
		}
		fmt.Fprintln(w, "input:")
		block(w, indentJSON(r.Input))
		if len(r.Suggestions) > 0 && string(r.Suggestions) != "[]" {
			fmt.Fprintln(w, "suggestions:")
			block(w, indentJSON(r.Suggestions))
		}
	case approval.KindSandbox:
		field("host", visible.Line(r.Host))
	case approval.KindPlan:
		field("plan file", visible.Line(r.PlanFilePath))
		if r.PlanConflict {
			field("warning", "two different plans came under this id; only denying is possible")
		}
		fmt.Fprintln(w, "plan:")
		block(w, visible.Block(r.PlanContent))
	}
}

// indentJSON lays raw JSON out over lines; JSON strings hold no raw line
// breaks, so visible.Block escapes everything else a teammate put there.
func indentJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return visible.Line(string(raw))
	}
	return visible.Block(buf.String())
}

// block prints text indented, every line whole.
func block(w io.Writer, text string) {
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintln(w, "    "+line)
	}
}
