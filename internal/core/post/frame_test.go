package post_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// framePost is a post from `from` in a team paneteam leads where alice
// has a pane of her own.
func framePost(t *testing.T, from string) (team.Team, *post.Post) {
	t.Helper()
	tm := teamtest.New(t, "crew", team.CreateOptions{LeaderPID: os.Getpid()},
		team.Member{Name: "alice", Color: "blue", TmuxPaneID: "%7", BackendType: team.BackendTmux},
		team.Member{Name: "bob", Color: "green"})
	cfg := teamtest.Load(t, tm)
	var warned []string
	p, err := caller(&warned, "PANETEAM_STATE_DIR="+t.TempDir()).Open(tm, cfg, lockfile.Options{}, from, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return tm, p
}

// frame drafts d for `to` and parses what it would write.
func frame(t *testing.T, p *post.Post, d mailbox.Draft, to string) (mailbox.Message, string, any) {
	t.Helper()
	draft, err := p.DraftFrame(d)
	if err != nil {
		t.Fatalf("%s: %v", d.Type, err)
	}
	m, id, err := draft(to, time.Now())
	if err != nil {
		t.Fatalf("%s: %v", d.Type, err)
	}
	f, ok := mailbox.Parse(m.Text)
	if !ok {
		t.Fatalf("%s: the text is not a frame: %s", d.Type, m.Text)
	}
	return m, id, f.Value
}

func TestDraftFrameFillsWhatTheSenderHolds(t *testing.T) {
	_, lead := framePost(t, team.LeadName)
	// A shutdown request gets an id per recipient, to match the answer.
	_, id, v := frame(t, lead, mailbox.Draft{Type: mailbox.TypeShutdownRequest, Reason: "done", Summary: "bye"}, "bob")
	if r, ok := v.(*mailbox.ShutdownRequest); !ok || r.RequestID != id || !regexp.MustCompile(`^shutdown-\d{13}@bob$`).MatchString(id) || r.From != team.LeadName {
		t.Errorf("shutdown_request: %+v, id %q", v, id)
	}
	// Its entry keeps the summary; an idle notice's summary is inside it.
	if m, _, _ := frame(t, lead, mailbox.Draft{Type: mailbox.TypeShutdownRequest, Summary: "bye"}, "bob"); m.Summary != "bye" {
		t.Errorf("shutdown_request's entry summary %q, want bye", m.Summary)
	}
	_, alice := framePost(t, "alice")
	m, _, v := frame(t, alice, mailbox.Draft{Type: mailbox.TypeIdle, IdleReason: mailbox.IdleAvailable, Summary: "did it"}, team.LeadName)
	if n, ok := v.(*mailbox.IdleNotification); !ok || n.Summary != "did it" || m.Summary != "" {
		t.Errorf("idle_notification %+v in an entry with summary %q", v, m.Summary)
	}
	// Claude Code's lead kills only the pane recorded for the teammate.
	_, _, v = frame(t, alice, mailbox.Draft{Type: mailbox.TypeShutdownApproved, RequestID: "shutdown-1@alice"}, team.LeadName)
	if a, ok := v.(*mailbox.ShutdownApproved); !ok || a.PaneID != "%7" || a.BackendType != team.BackendTmux {
		t.Errorf("shutdown_approved %+v, want alice's pane %%7 on tmux", v)
	}
}

// Allowing a tool call runs the request's own input, found in the
// sender's inbox; a request that is not there is refused, not guessed.
func TestDraftFrameAllowsTheRequestsOwnInput(t *testing.T) {
	tm, lead := framePost(t, team.LeadName)
	req := `{"type":"permission_request","request_id":"perm-1","agent_id":"alice@crew","tool_name":"Bash",` +
		`"tool_use_id":"tu1","description":"list files","input":{"command":"ls -la"},"permission_suggestions":[]}`
	in := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{})
	if err := in.Send(context.Background(), mailbox.Message{From: "alice", Text: req, Timestamp: mailbox.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	yes := true
	m, _, _ := frame(t, lead, mailbox.Draft{Type: mailbox.TypePermissionResponse, RequestID: "perm-1", Approve: &yes}, "alice")
	if !strings.Contains(m.Text, `"updated_input":{"command":"ls -la"}`) {
		t.Errorf("the answer does not run the request's input: %s", m.Text)
	}
	_, err := lead.DraftFrame(mailbox.Draft{Type: mailbox.TypePermissionResponse, RequestID: "perm-2", Approve: &yes})
	var none *post.NoRequestError
	if !errors.As(err, &none) || none.ID != "perm-2" || none.From != team.LeadName {
		t.Errorf("allowing an unknown request: %v", err)
	}
}

// A frame that cannot be written is refused before any recipient.
func TestDraftFrameRefusals(t *testing.T) {
	_, lead := framePost(t, team.LeadName)
	var usage *post.UsageError
	for _, tc := range []struct {
		d     mailbox.Draft
		usage bool
		want  string
	}{
		{mailbox.Draft{Type: mailbox.TypeShutdownApproved}, true, "request id"},
		{mailbox.Draft{Type: mailbox.TypeModeSetRequest, Mode: "yolo"}, true, "acceptEdits"},
		{mailbox.Draft{Type: "nonsense"}, true, "shutdown_request"},
		{mailbox.Draft{Type: mailbox.TypeShutdownRequest, Reason: "bad \xff"}, false, "UTF-8"},
	} {
		_, err := lead.DraftFrame(tc.d)
		if err == nil || errors.As(err, &usage) != tc.usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want a refusal (usage %v) saying %q", tc.d, err, tc.usage, tc.want)
		}
	}
	for _, kind := range append([]string{""}, mailbox.Composable...) {
		fields, ok := post.FrameFields(kind)
		if !ok {
			t.Errorf("%q, which mailbox composes, takes no fields at all", kind)
		}
		for _, f := range fields {
			if !strings.Contains(" "+strings.Join(post.FrameFieldNames, " ")+" ", " "+f+" ") {
				t.Errorf("%s takes %s, which FrameFieldNames does not list", kind, f)
			}
		}
	}
}
