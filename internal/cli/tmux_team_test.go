package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// Inside tmux, a command given no team uses the session's @paneteam-team
// (how tmux.conf.example's popups find theirs), and says how to set it
// when it is not set.
func TestTeamFromTmuxOption(t *testing.T) {
	root, vars := ptRootVars(t)
	ptRun(t, vars, "", "team-create", "review")
	ptAddMember(t, root, "review", "bob")
	srv := testutil.TmuxServer(t)
	for _, kv := range testutil.TmuxEnv(t, srv, testutil.FirstPane(t, srv)) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}

	_, stderr, code := ptRun(t, vars, "", "send", "--to", "bob", "hi")
	if code != ExitUsage || !strings.Contains(stderr, "tmux set-option "+tmux.TeamOption+" NAME") {
		t.Errorf("no option: exit %d, %q", code, stderr)
	}

	if _, err := srv.Run(context.Background(), "set-option", "-t", "guard", tmux.TeamOption, "review"); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := ptRun(t, vars, "", "send", "--to", "bob", "hi"); code != ExitOK {
		t.Fatalf("with the option: exit %d, %q", code, stderr)
	}
	tm, _, _ := team.Open(root, "review")
	if msgs, _ := mailbox.New(tm.InboxPath("bob"), lockOptsDefault()).ReadAll(); len(msgs) != 1 || msgs[0].Text != "hi" {
		t.Errorf("bob's inbox: %+v", msgs)
	}
}
