package cli

import (
	"context"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/term/visible"
)

func approveCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "approve",
		Usage:     "approve a teammate's tool call, network host or plan",
		ArgsUsage: "ID | --all",
		Description: `Writes the answer to a request listed by 'paneteam requests' into the
teammate's inbox, exactly as Claude Code checks it: bound to the
request (its tool_use_id and the digest of the tool input you were shown;
for a plan, the digest of the plan), so the teammate acts on it. ID may be
any unique beginning of the id; --from NAME narrows it to one teammate.

    paneteam approve perm-1767225600000-abc1234 --team review
    paneteam approve perm-17672256 --team review --always   # and don't ask again
    paneteam approve plan_approval-1767225600000@alice@review --team review --mode acceptEdits
    paneteam approve --all --team review --from alice --tool Bash

--mode is the permission mode the teammate works in after an approved plan:
default (the default), acceptEdits, auto, bypassPermissions, dontAsk or
plan. --always also adds the "always allow" rule that Claude Code suggested
in the request itself. --feedback reaches the model with an approved plan.
--all approves every waiting request, narrowed by --from and --tool.
The answer to a plan is written once the teammate's turn has ended (up to
10 s), as a Claude Code teammate can miss one read while that turn ends.

A request is answered once: a second answer (from any process) is refused,
as are an unknown or ambiguous id. In a team led by a running Claude Code
session, or for a teammate that only believes signed answers whose key
paneteam does not hold, paneteam refuses: answer in Claude Code.`,
		Flags: append(answerFlags(),
			&ucli.StringFlag{Name: "mode", Usage: "permission mode after an approved plan: " + strings.Join(approval.PlanModes, ", ") + " (default: default)"},
			&ucli.BoolFlag{Name: "always", Usage: "also add the \"always allow\" rule the request suggests"},
			&ucli.BoolFlag{Name: "all", Usage: "approve every waiting request (narrow with --from, --tool)"},
			&ucli.StringFlag{Name: "tool", Usage: "with --all: only tool calls of this tool, such as Bash"},
		),
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readApproveOptions(c)
			if err != nil {
				return err
			}
			return runApprove(ctx, env, o)
		},
	}
}

func denyCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "deny",
		Usage:     "deny a teammate's tool call or network host, or reject its plan",
		ArgsUsage: "ID",
		Description: `Writes a denial to a request listed by 'paneteam requests' into the
teammate's inbox, bound to the request as Claude Code checks it.
The tool call does not run and the model sees --feedback (default
"Permission denied"); a rejected plan keeps the teammate in plan mode with
your feedback. ID may be any unique beginning of the id.

    paneteam deny perm-1767225600000-abc1234 --team review --feedback "use make test"
    paneteam deny plan_approval-1767225600000@alice@review --team review --feedback "split step 2"`,
		Flags: answerFlags(),
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readDenyOptions(c)
			if err != nil {
				return err
			}
			return runDeny(ctx, env, o)
		},
	}
}

func answerFlags() []ucli.Flag {
	return []ucli.Flag{
		teamFlag(),
		jsonFlag(),
		&ucli.StringFlag{Name: "feedback", Aliases: []string{"m"}, Usage: "text the teammate's model reads: why it was denied, or notes on a plan"},
		&ucli.StringFlag{Name: "from", Usage: "only requests from this teammate"},
	}
}

// answerOptions are the flags of approve and deny.
type answerOptions struct {
	Scope    teamScope
	JSON     bool
	Feedback string
	From     string // only requests from this teammate
	ID       string // the request ID, or a unique beginning of one
	// approve only
	Mode   string
	Always bool
	All    bool
	Tool   string // with --all: only tool calls of this tool
}

// readAnswerOptions reads the flags approve and deny share.
func readAnswerOptions(c *ucli.Command) answerOptions {
	return answerOptions{Scope: readTeamScope(c), JSON: readFlags(c).Bool("json"), Feedback: readFlags(c).String("feedback"), From: readFlags(c).String("from")}
}

// readRequestID is the one request ID approve and deny answer.
func readRequestID(c *ucli.Command) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("give one request ID (see 'paneteam requests'), got %d arguments", c.NArg())
	}
	return c.Args().First(), nil
}

func readDenyOptions(c *ucli.Command) (answerOptions, error) {
	o := readAnswerOptions(c)
	var err error
	o.ID, err = readRequestID(c)
	return o, err
}

// readApproveOptions reads approve's flags: one request ID, or --all
// narrowed by --from and --tool.
func readApproveOptions(c *ucli.Command) (answerOptions, error) {
	o := readAnswerOptions(c)
	o.Mode, o.Always, o.All, o.Tool = readFlags(c).String("mode"), readFlags(c).Bool("always"), readFlags(c).Bool("all"), readFlags(c).String("tool")
	if o.All {
		if c.NArg() > 0 {
			return o, usagef("give a request ID or --all, not both")
		}
		return o, nil
	}
	if readFlags(c).IsSet("tool") {
		return o, usagef("--tool narrows --all; with one ID, drop it")
	}
	var err error
	o.ID, err = readRequestID(c)
	return o, err
}

func runApprove(ctx context.Context, env Env, o answerOptions) error {
	d := approval.Decision{Approve: true, Feedback: o.Feedback, Mode: o.Mode, Always: o.Always}
	if o.All {
		return answerAll(ctx, env, o, d)
	}
	return answerOne(ctx, env, o, d)
}

func runDeny(ctx context.Context, env Env, o answerOptions) error {
	return answerOne(ctx, env, o, approval.Decision{Feedback: o.Feedback})
}

func answerOne(ctx context.Context, env Env, o answerOptions, d approval.Decision) error {
	lead, err := openLead(ctx, o.Scope, env)
	if err != nil {
		return err
	}
	res, err := lead.Answer(ctx, o.ID, o.From, d)
	if err != nil {
		return err
	}
	return printAnswers(env, o.JSON, []approval.Result{res}, false)
}

// answerAll answers every waiting request that --from and --tool keep;
// one that cannot be answered is reported and the rest still are.
func answerAll(ctx context.Context, env Env, o answerOptions, d approval.Decision) error {
	lead, err := openLead(ctx, o.Scope, env)
	if err != nil {
		return err
	}
	ls, err := lead.List()
	if err != nil {
		return err
	}
	var done []approval.Result
	failed := 0
	for _, r := range ls.Waiting() {
		if f := o.From; f != "" && !strings.EqualFold(f, r.From) {
			continue
		}
		if tool := o.Tool; tool != "" && (r.Kind != approval.KindPermission || !strings.EqualFold(tool, r.ToolName)) {
			continue
		}
		res, err := lead.AnswerRequest(ctx, r, d)
		if err != nil {
			failed++
			fmt.Fprintf(env.Stderr, "paneteam: %s: %s\n", visible.Line(r.ID), cliWords(err))
			continue
		}
		done = append(done, res)
	}
	if len(done) == 0 && failed == 0 && !o.JSON {
		fmt.Fprintln(env.Stderr, "no waiting request matches")
	}
	if err := printAnswers(env, o.JSON, done, true); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d requests could not be answered (see above)", failed, failed+len(done))
	}
	return nil
}

func printAnswers(env Env, asJSON bool, rs []approval.Result, list bool) error {
	if asJSON {
		if list {
			if rs == nil {
				rs = []approval.Result{}
			}
			return printJSON(env.Stdout, rs)
		}
		return printJSON(env.Stdout, rs[0])
	}
	for _, r := range rs {
		verb := "denied"
		if r.Approved {
			verb = "approved"
		}
		if r.Request.Kind == approval.KindPlan && !r.Approved {
			verb = "rejected"
		}
		fmt.Fprintf(env.Stdout, "%s %s from %s: %s\n", verb, visible.Line(r.Request.ID), visible.Line(r.Request.From),
			approval.Subject(r.Request))
	}
	return nil
}
