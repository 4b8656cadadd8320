package approval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func TestFindsRequestsInInboxAndArchiveOldestFirst(t *testing.T) {
	l := crew(t)
	// A watcher marked the oldest two read; they moved to the archive.
	writeArchive(t, l,
		entry("alice", permFrame("perm-1-aaaaaaa", "alice", "Bash", exampleInput), t0),
		entry("bob", planFrame("plan_approval-3@bob@crew", "bob", examplePlan), t0.Add(2*time.Second)),
		entry("alice", "just chatting about _requests", t0.Add(3*time.Second)),
	)
	writeInbox(t, l,
		entry("bob", sandboxFrame("sandbox-2-bbbbbbb", "bob", "example.com"), t0.Add(time.Second)),
		entry("alice", `{"type":"idle_notification","from":"alice","timestamp":"2026-01-01T00:00:05.000Z"}`, t0.Add(5*time.Second)),
		entry("alice", permFrame("perm-6-ccccccc", "alice", "Edit", `{"file_path":"/src/main.go","old_string":"a","new_string":"b"}`), t0.Add(6*time.Second)),
	)
	got := waiting(t, l)
	if want := "perm-1-aaaaaaa sandbox-2-bbbbbbb plan_approval-3@bob@crew perm-6-ccccccc"; ids(got) != want {
		t.Fatalf("waiting %q, want %q (inbox and archive, oldest first)", ids(got), want)
	}
	if got[1].Kind != KindSandbox || got[1].Host != "example.com" || got[2].Kind != KindPlan || got[2].PlanContent != examplePlan {
		t.Fatalf("fields not read: %+v", got)
	}
	// A crash can leave one entry in both places: it is listed once.
	writeArchive(t, l,
		entry("alice", permFrame("perm-1-aaaaaaa", "alice", "Bash", exampleInput), t0),
		entry("alice", permFrame("perm-1-aaaaaaa", "alice", "Bash", exampleInput), t0),
	)
	if got := waiting(t, l); len(got) != 3 {
		t.Fatalf("duplicate listed: %q", ids(got))
	}
}

func TestDropsRequestsClaudeCodesLeadWouldDrop(t *testing.T) {
	l := crew(t)
	writeInbox(t, l,
		// agent_id is not the sender: Claude Code's lead drops it (§9 step 2).
		entry("bob", permFrame("perm-1-aaaaaaa", "alice", "Bash", exampleInput), t0),
		// workerName is not the sender (§9, sandbox).
		entry("bob", sandboxFrame("sandbox-2-bbbbbbb", "alice", "example.com"), t0),
		// No request id.
		entry("bob", `{"type":"plan_approval_request","from":"bob","planContent":"x","planFilePath":"p"}`, t0),
		entry("bob", permFrame("perm-4-ddddddd", "bob", "Bash", exampleInput), t0),
	)
	if got := ids(waiting(t, l)); got != "perm-4-ddddddd" {
		t.Fatalf("waiting %q, want only the well-formed perm-4-ddddddd", got)
	}
}

func TestAnsweredOrGoneRequestsAreNotListed(t *testing.T) {
	l := crew(t)
	writeInbox(t, l,
		entry("alice", permFrame("perm-1-aaaaaaa", "alice", "Bash", exampleInput), t0),
		entry("bob", permFrame("perm-2-bbbbbbb", "bob", "Bash", exampleInput), t0.Add(time.Second)),
		entry("carol", permFrame("perm-3-ccccccc", "carol", "Bash", exampleInput), t0.Add(2*time.Second)),
	)
	if got := ids(waiting(t, l)); got != "perm-1-aaaaaaa perm-2-bbbbbbb" {
		t.Fatalf("waiting %q: carol is no member", got)
	}
	if _, err := l.Answer(context.Background(), "perm-1-aaaaaaa", "", Decision{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if got := ids(waiting(t, l)); got != "perm-2-bbbbbbb" {
		t.Fatalf("waiting %q after answering perm-1", got)
	}
	if _, err := l.Team.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.RemoveMember("bob")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := waiting(t, l); len(got) != 0 {
		t.Fatalf("waiting %q after bob left", ids(got))
	}
	n, err := Pending(l.Team.Root, "crew")
	if err != nil || len(n) != 0 {
		t.Fatalf("Pending: %v %v", ids(n), err)
	}
}

func TestPendingCountsPerTeammate(t *testing.T) {
	l := crew(t)
	writeInbox(t, l,
		entry("alice", permFrame("perm-1-aaaaaaa", "alice", "Bash", exampleInput), t0),
		entry("alice", planFrame("plan_approval-2@alice@crew", "alice", examplePlan), t0),
		entry("bob", sandboxFrame("sandbox-3-ccccccc", "bob", "example.com"), t0),
	)
	rs, err := Pending(l.Team.Root, "crew")
	if err != nil {
		t.Fatal(err)
	}
	n := PerTeammate(rs)
	if n["alice"] != 2 || n["bob"] != 1 || len(n) != 2 {
		t.Fatalf("per teammate %v, want alice 2, bob 1", n)
	}
}

// TestARepliedRequestIsNotListed: a reply from the lead written by other
// means than 'paneteam approve' answers the request while it is on disk,
// in the teammate's inbox or in its archive.
func TestARepliedRequestIsNotListed(t *testing.T) {
	l := crew(t)
	writeInbox(t, l,
		entry("alice", permFrame("perm-1-aaaaaaa", "alice", "Bash", exampleInput), t0),
		entry("bob", sandboxFrame("sandbox-2-bbbbbbb", "bob", "example.com"), t0.Add(time.Second)),
	)
	reply := func(name, text string) {
		t.Helper()
		err := mailbox.New(l.Team.InboxPath(name), lockfile.Options{}).Append(context.Background(), entry(team.LeadName, text, t0.Add(2*time.Second)))
		if err != nil {
			t.Fatal(err)
		}
	}
	reply("alice", `{"type":"permission_response","request_id":"perm-1-aaaaaaa","subtype":"error","error":"no"}`)
	if got := ids(waiting(t, l)); got != "sandbox-2-bbbbbbb" {
		t.Fatalf("waiting %q, want alice's request answered by the reply in her inbox", got)
	}
	archived := entry(team.LeadName, `{"type":"sandbox_permission_response","requestId":"sandbox-2-bbbbbbb","host":"example.com","allow":true,"timestamp":"x"}`, t0)
	archived.Read = true
	line, _ := json.Marshal(archived)
	if err := os.WriteFile(mailbox.ArchivePath(l.Team.InboxPath("bob")), append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := waiting(t, l); len(got) != 0 {
		t.Fatalf("waiting %q, want bob's request answered by the reply in his archive", ids(got))
	}
}

// TestARequestFromAPlantedLeadRowIsNoTeammates: config.json is written by
// others, and a row named the lead in another spelling ("team.lead",
// whose inbox file is the lead's own team-lead.json) is not a teammate:
// a request "from" it is not listed as waiting, and answering it is
// refused, so no approval is written into the lead's own inbox as if a
// teammate had asked.
func TestARequestFromAPlantedLeadRowIsNoTeammates(t *testing.T) {
	l := crew(t)
	if _, err := l.Team.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.Members = append(c.Members, team.Member{Name: "team.lead", AgentID: "team.lead@crew", JoinedAt: t0.UnixMilli()})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	const id = "perm-1767225600000-ddddddd"
	writeInbox(t, l,
		entry("alice", permFrame("perm-1767225600000-aaaaaaa", "alice", "Bash", exampleInput), t0),
		entry("team.lead", permFrame(id, "team.lead", "Bash", exampleInput), t0.Add(time.Second)),
	)
	if got := ids(waiting(t, l)); got != "perm-1767225600000-aaaaaaa" {
		t.Errorf("waiting %q: a request from the planted team.lead row is listed as a teammate's", got)
	}
	if _, err := l.Answer(context.Background(), id, "", Decision{Approve: true}); !errors.Is(err, ErrGone) {
		t.Errorf("answering the planted team.lead row's request: %v, want ErrGone", err)
	}
	for _, m := range inbox(t, l, team.LeadName) {
		if strings.Contains(m.Text, "permission_response") {
			t.Errorf("an answer was written into the lead's own inbox: %s", m.Text)
		}
	}
}
