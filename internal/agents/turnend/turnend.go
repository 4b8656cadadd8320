// Package turnend turns an agent CLI's own turn-end hook into what Claude
// Code's lead expects of a teammate at the end of each turn: an
// idle_notification with the turn's last reply. It also marks the turn's
// end in a file the teammate's wrapper watches ('paneteam teammate
// --agent'), which then knows the CLI waits for input.
package turnend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/internal/term/shorten"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// TurnFileVar names the file the wrapper watches; the hook appends one
// line to it per turn end.
const TurnFileVar = "PANETEAM_TURN_FILE"

// Read reads a hook's report as the profile describes it and returns the
// turn's last reply; ok is false for a report that is not the end of one
// of the teammate's own turns (another event, a CLI's internal thread).
func Read(hi profile.HookInput, args []string, stdin io.Reader) (reply string, ok bool, err error) {
	obj, err := Parse(hi, args, stdin)
	if err != nil {
		return "", false, err
	}
	reply, ok = TurnEnd(hi, obj)
	return reply, ok, nil
}

// Parse reads a hook's report, a JSON object, from where the profile says
// the hook hands it over: its last argument or stdin.
func Parse(hi profile.HookInput, args []string, stdin io.Reader) (map[string]any, error) {
	var raw []byte
	switch hi.From {
	case "lastArg":
		if len(args) == 0 {
			return nil, errors.New("no report: the hook passes it as the last argument")
		}
		raw = []byte(args[len(args)-1])
	default:
		var err error
		if raw, err = io.ReadAll(io.LimitReader(stdin, 16<<20)); err != nil {
			return nil, fmt.Errorf("read the hook's report: %w", err)
		}
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("the hook's report is not a JSON object: %w", err)
	}
	return obj, nil
}

// TurnEnd returns the turn's last reply of a report that is the end of
// one of the teammate's own turns; ok is false for any other.
func TurnEnd(hi profile.HookInput, obj map[string]any) (reply string, ok bool) {
	if !matches(obj, hi.Match) {
		return "", false
	}
	for _, k := range hi.Skip {
		if v, present := obj[k]; present && v != nil && v != "" && v != false {
			return "", false
		}
	}
	if hi.Reply != "" {
		reply, _ = obj[hi.Reply].(string)
	}
	return reply, true
}

// matches reports whether every key of match holds its string in obj.
func matches(obj map[string]any, match map[string]string) bool {
	for k, want := range match {
		if got, _ := obj[k].(string); got != want {
			return false
		}
	}
	return true
}

// Limits Claude Code keeps to in an idle_notification
// (docs/PROTOCOL.md §8).
const (
	summaryMax = 200
	resultMax  = 4000
)

// Report writes the idle_notification to the team's lead, from agent,
// with reply as its summary (its first line, shortened) and result, and
// appends a line to turnFile when one is given.
func Report(ctx context.Context, t team.Team, agent, reply, turnFile string, lock lockfile.Options, now time.Time) error {
	cfg, err := team.Load(t.ConfigPath())
	if err != nil {
		return fmt.Errorf("read team %s: %w", t.Name, err)
	}
	m := cfg.Member(agent)
	if m == nil {
		return fmt.Errorf("%s is not a member of team %s: no idle notice sent", agent, t.Name)
	}
	reply = strings.TrimSpace(reply)
	n := mailbox.IdleNotification{
		Type: mailbox.TypeIdle, From: m.Name, Timestamp: mailbox.Timestamp(now),
		IdleReason: mailbox.IdleAvailable, Summary: Summary(reply), Result: Result(reply),
	}
	// Through post, so the lead's inbox summarises this notice as it does
	// every idle notice paneteam writes (post.OpenInbox).
	p := post.As(t, cfg, lock, m.Name)
	if _, err := p.SendFrame(ctx, p.Lead(), n, now); err != nil {
		return fmt.Errorf("tell %s that %s is idle: %w", p.Lead(), m.Name, err)
	}
	if turnFile != "" {
		f, err := safefs.OpenFile(turnFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("mark the turn's end: %w", err)
		}
		_, err = fmt.Fprintln(f, now.UnixMilli())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("mark the turn's end: %w", err)
		}
	}
	return nil
}

// Summary is the first line of a reply, shortened to what a lead shows.
func Summary(reply string) string {
	return shorten.FirstLine(reply, summaryMax)
}

// Result is a reply as Claude Code keeps a turn's result.
func Result(reply string) string { return shorten.Runes(reply, resultMax, "\n[result truncated…]") }
