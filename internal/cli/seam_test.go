package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// A command's run function is called here with its options and an Env
// built by hand, without Main and without flags: the seam a test of one
// command's logic uses, beside the end-to-end tests through Main.
func handEnv(t *testing.T) (Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	var out, errb bytes.Buffer
	return Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Vars: map[string]string{
			"HOME":               home,
			"PANETEAM_STATE_DIR": filepath.Join(home, "state"),
			"PANETEAM_USER":      "pat",
		},
	}, &out, &errb
}

func TestRunFunctionsTakeOptionsAndAnEnv(t *testing.T) {
	ctx := context.Background()
	env, out, _ := handEnv(t)
	root := filepath.Join(env.Vars["HOME"], "root")
	if err := runTeamCreate(ctx, env, teamCreateOptions{Root: root, Name: "Review", LeaderPID: os.Getpid()}); err != nil {
		t.Fatalf("runTeamCreate: %v", err)
	}
	tm, _, err := team.Open(root, "review")
	if err != nil {
		t.Fatalf("the team runTeamCreate made does not open: %v", err)
	}
	if _, err := tm.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
		_, err := c.AddMember(team.Member{Name: "alice"})
		return err
	}); err != nil {
		t.Fatal(err)
	}

	out.Reset()
	scope := teamScope{Root: root, Team: "review"}
	if err := runSend(ctx, env, sendOptions{Scope: scope, To: []string{"alice"}, Args: []string{"look at the diff"}}); err != nil {
		t.Fatalf("runSend: %v", err)
	}
	msgs, err := mailbox.New(tm.InboxPath("alice"), lockfile.Options{}).ReadAll()
	if err != nil || len(msgs) != 1 || msgs[0].Text != "look at the diff" {
		t.Fatalf("alice's inbox = %+v, %v; want the one message sent", msgs, err)
	}

	// A refusal comes back worded by the command line (its flag named)
	// with the members listed, and nothing written.
	err = runSend(ctx, env, sendOptions{Scope: scope, To: []string{"bob"}, Args: []string{"hi"}})
	if err == nil || !strings.Contains(err.Error(), "alice") || !strings.Contains(err.Error(), "--create-inbox") {
		t.Fatalf("send to a non-member = %v; want a refusal that lists the members and names --create-inbox", err)
	}
	if _, err := os.Stat(tm.InboxPath("bob")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused send left an inbox for bob: %v", err)
	}
}

// The run's shared values are made once by Main and reached by every
// command through its Env: the state folder is the one the run's
// environment names, and a team is read once per run.
func TestARunSharesOneFactory(t *testing.T) {
	env, _, _ := handEnv(t)
	if got, err := env.stateDir(); err != nil || got != env.Vars["PANETEAM_STATE_DIR"] {
		t.Fatalf("stateDir = %q, %v", got, err)
	}
	root := filepath.Join(env.Vars["HOME"], "root")
	if _, _, err := team.Create(root, "solo", team.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.shared = env.factory() // as Main does
	_, first, err := teamScope{Root: root, Team: "solo"}.open(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	_, again, err := teamScope{Root: root, Team: "solo"}.open(context.Background(), env)
	if err != nil || again != first {
		t.Fatalf("a second open in one run read config.json again (%p, %p, %v)", first, again, err)
	}
}
