package web_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/internal/ui/web"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// counted is the team watcher, counting the snapshots it hands the
// server (each one is a view encoded and pushed to every page).
type counted struct {
	w *teamwatch.Watcher
	n atomic.Int32
}

func (c *counted) Next(ctx context.Context) (*teamwatch.Snapshot, []teamwatch.Event, error) {
	s, ev, err := c.w.Next(ctx)
	if err == nil {
		c.n.Add(1)
	}
	return s, ev, err
}

// countedActions is the real actions, counting the request listings (one
// per view built: the lead's inbox and archive read again).
type countedActions struct {
	*web.Live
	n atomic.Int32
}

func (c *countedActions) Requests(ctx context.Context) ([]approval.Request, error) {
	c.n.Add(1)
	return c.Live.Requests(ctx)
}

// TestIdleTeamCostsNoViews: while nothing in the team changes, the
// watcher's polls (many here, at 50 ms) hand the server no snapshot, so no
// view is built, no request listing read and nothing sent to the open
// page; the next change is pushed at once. A page open on a quiet team
// costs the server nothing per poll beyond the poll itself.
func TestIdleTeamCostsNoViews(t *testing.T) {
	now := time.Now()
	tm := teamtest.New(t, "crew", team.CreateOptions{Cwd: t.TempDir(), Now: now},
		teamtest.Like(team.Member{JoinedAt: now.UnixMilli()}, "alice", "bob")...)
	tok, err := web.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	w := &counted{w: teamwatch.NewWatcher(tm, teamwatch.WatchOptions{Poll: 50 * time.Millisecond})}
	acts := &countedActions{Live: &web.Live{Team: tm, Caller: post.Caller{Getenv: func(string) string { return "" }}}}
	srv, err := web.New(web.Config{Team: tm.Name, Actions: acts, Watch: w, Token: tok, Log: []io.Writer{&testLog{t}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done; w.w.Close() })
	go func() { defer close(done); srv.Run(ctx) }()
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.BaseContext = func(net.Listener) context.Context { return ctx }
	hs.Start()
	t.Cleanup(hs.Close)
	t.Cleanup(cancel)

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	res, err := client.Get(hs.URL + "/?token=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	req, _ := http.NewRequestWithContext(ctx, "GET", hs.URL+"/events", nil)
	stream, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("the event stream answered %s", stream.Status)
	}
	var views atomic.Int32
	go func() {
		s := bufio.NewScanner(stream.Body)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			if strings.HasPrefix(s.Text(), "event: view") {
				views.Add(1)
			}
		}
	}()
	testutil.Eventually(t, 5*time.Second, "the first view on the page", func() bool { return views.Load() >= 1 })

	time.Sleep(time.Second) // about 20 polls, nothing changing
	if v, n, r := views.Load(), w.n.Load(), acts.n.Load(); v != 1 || n != 1 || r != 1 {
		t.Errorf("over a quiet second: %d views sent, %d snapshots handed over, %d request listings read; want 1 of each (the first)", v, n, r)
	}

	// A change is still pushed: alice goes idle.
	idle, err := mailbox.Text(mailbox.IdleNotification{Type: mailbox.TypeIdle, From: "alice", Timestamp: mailbox.Timestamp(time.Now()),
		IdleReason: mailbox.IdleAvailable})
	if err != nil {
		t.Fatal(err)
	}
	lead := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{})
	if err := lead.Append(ctx, mailbox.Message{From: "alice", Text: idle, Timestamp: mailbox.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "alice's idle pushed to the page", func() bool { return views.Load() >= 2 })
}
