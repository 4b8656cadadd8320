package cli

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// keyedShutdown is a shutdown request to worker in the lead's name,
// signed with key unless it is nil.
func keyedShutdown(t *testing.T, key *provenance.Key, id string) mailbox.Message {
	t.Helper()
	now := mailbox.Timestamp(time.Now())
	text, err := mailbox.Text(mailbox.ShutdownRequest{Type: mailbox.TypeShutdownRequest, RequestID: id, From: team.LeadName, Timestamp: now})
	if err != nil {
		t.Fatal(err)
	}
	m := mailbox.Message{From: team.LeadName, Text: text, Timestamp: now, MsgID: mailbox.NewMsgID()}
	if key != nil {
		if m.LeadSig, err = key.Sign(mailbox.EntryOf(m)); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// 'paneteam teammate --lead-verify-key' (here from its variable, as the
// router may pass it) refuses the lead's unsigned shutdown and obeys its
// signed one; a malformed key is a usage error before anything runs.
func TestTeammateLeadVerifyKey(t *testing.T) {
	root := testutil.Root(t)
	tm, _, err := team.Create(root, "keyed", team.CreateOptions{Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		_, err := c.AddMember(team.Member{Name: "worker", Cwd: root, BackendType: team.BackendInProcess, TmuxPaneID: team.InProcessPaneID})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	bin := testutil.Binary(t)
	base := []string{"PANETEAM_ROOT=" + root, "PANETEAM_TEAM=keyed", "PANETEAM_AGENT=worker"}

	bad := exec.Command(bin, "teammate", "--lead-verify-key", "12.nope")
	bad.Env = testutil.Env(base...)
	out, err := bad.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "--lead-verify-key") {
		t.Fatalf("a malformed key: %v, %s; want exit 2 naming --lead-verify-key", err, out)
	}

	key, err := provenance.NewKey(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "teammate", "--poll", "50ms")
	cmd.Env = testutil.Env(append(base, provenance.EnvLeadVerifyKey+"="+key.Flag())...)
	var errb testutil.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	in := mailbox.New(tm.InboxPath("worker"), lockfile.Options{})
	if err := in.Append(context.Background(), keyedShutdown(t, nil, "shutdown-1@worker")); err != nil {
		t.Fatal(err)
	}
	lead := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{})
	answered := func(typ string) bool {
		msgs, _ := lead.ReadAll()
		for _, m := range msgs {
			if p, ok := mailbox.Parse(m.Text); ok && p.Type == typ {
				return true
			}
		}
		return false
	}
	testutil.Eventually(t, 15*time.Second, "the unsigned shutdown was not rejected", func() bool { return answered(mailbox.TypeShutdownRejected) })
	if err := in.Append(context.Background(), keyedShutdown(t, key, "shutdown-2@worker")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil || !answered(mailbox.TypeShutdownApproved) {
			t.Fatalf("the signed shutdown: %v, approved %v\n%s", err, answered(mailbox.TypeShutdownApproved), errb.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the signed shutdown did not end the teammate\n%s", errb.String())
	}
}
