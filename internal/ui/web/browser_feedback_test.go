package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/browsertest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// TestBrowserFeedbackSurvivesTheTeamChanging: the person types feedback
// into a request's card, and while they type the team changes (bob
// writes to the lead, so the page gets a new view). The card, its field
// and what is typed in it stay; Deny sends that feedback to alice.
func TestBrowserFeedbackSurvivesTheTeamChanging(t *testing.T) {
	b := browsertest.Start(t, browsertest.Options{})
	tm := crewTeam(t)
	hs, tok := serve(t, tm, false)
	card := `#requests li[data-request="` + permID + `"]`
	field := card + ` input[aria-label="Feedback for alice's request"]`

	b.Open(t, hs.URL+"/?token="+tok)
	b.WaitText(t, 10*time.Second, "ls -la /tmp")
	b.Type(t, field, "not now: ")
	msg := mailbox.Message{From: "bob", Text: "rebased on main", Timestamp: mailbox.Timestamp(time.Now())}
	if err := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{}).Append(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	b.WaitText(t, 10*time.Second, "rebased on main")
	focused := browsertest.Eval[bool](t, b, fmt.Sprintf(`document.activeElement === document.querySelector(%q)`, field))
	b.Type(t, field, "use the test target")
	b.ClickButton(t, card, "Deny")
	testutil.Eventually(t, 5*time.Second, "the denial in alice's inbox", func() bool {
		return strings.Contains(readFile(t, tm.InboxPath("alice")), "permission_response")
	})
	if got := readFile(t, tm.InboxPath("alice")); !strings.Contains(got, "not now: use the test target") {
		t.Errorf("alice's inbox holds no denial with the feedback typed, across the new view:\n%s", got)
	}
	if !focused {
		t.Error("the feedback field lost its focus when the page got a new view")
	}
}
