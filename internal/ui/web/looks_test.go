package web

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/paneanswer"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// The recorder's panes: every member's pane is reachable and shows what
// screenOf says (by default "the screen of NAME"); what is read and
// typed is recorded.
func (r *recorder) Reach(_ context.Context, names []string) []Reached {
	r.mu.Lock()
	r.reaches++
	r.mu.Unlock()
	out := make([]Reached, len(names))
	for i, n := range names {
		out[i].Where = "tmux pane of " + n
	}
	return out
}
func (r *recorder) Screen(_ context.Context, name string) (string, error) {
	r.mu.Lock()
	r.screens = append(r.screens, name)
	of := r.screenOf
	r.mu.Unlock()
	if of != nil {
		return of(name), nil
	}
	return "the screen of " + name, nil
}
func (r *recorder) Type(_ context.Context, name string, in paneanswer.Input) error {
	r.add("type into " + name)
	return nil
}

func (r *recorder) screensRead() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.screens...)
}

// streamGET opens an event stream on the test server and returns its
// status, closing it when the test ends.
func streamGET(t *testing.T, ts *httptest.Server, path string, c *http.Cookie) (*http.Response, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+path, nil)
	req.AddCookie(c)
	res, err := ts.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	stop := func() { cancel(); res.Body.Close() }
	t.Cleanup(stop)
	return res, stop
}

// TestLookStreamsAreBoundedPerSession: one browser may read at most
// maxLooks panes at once; one more is refused with 429 and reads
// nothing, and a closed stream makes room again.
func TestLookStreamsAreBoundedPerSession(t *testing.T) {
	f := newFixture(t, nil)
	c, _ := f.login()
	ts := httptest.NewServer(f.h)
	t.Cleanup(ts.Close)
	var stops []func()
	for i := 0; i < maxLooks; i++ {
		res, stop := streamGET(t, ts, "/events?look=alice", c)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("look stream %d: %d", i+1, res.StatusCode)
		}
		stops = append(stops, stop)
	}
	res, _ := streamGET(t, ts, "/events?look=alice", c)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("look stream %d: %d, want 429", maxLooks+1, res.StatusCode)
	}
	if body, _ := io.ReadAll(res.Body); !strings.Contains(string(body), "close a page first") {
		t.Errorf("look stream %d refused with %s", maxLooks+1, body)
	}
	// The view alone is not bounded by it.
	if res, _ := streamGET(t, ts, "/events", c); res.StatusCode != http.StatusOK {
		t.Errorf("a stream without a look: %d", res.StatusCode)
	}
	stops[0]()
	testutil.Eventually(t, 5*time.Second, "a closed look stream to make room", func() bool {
		res, stop := streamGET(t, ts, "/events?look=alice", c)
		defer stop()
		return res.StatusCode == http.StatusOK
	})
}

// TestLookStreamEndsForAClientThatStopsReading: a client that opens a
// look stream and never reads it (gone without closing) stops being read
// for once the connection's buffers are full and a write outlives its
// deadline.
func TestLookStreamEndsForAClientThatStopsReading(t *testing.T) {
	old := eventWrite
	eventWrite = 300 * time.Millisecond
	t.Cleanup(func() { eventWrite = old })
	f := newFixture(t, nil)
	var mu sync.Mutex
	n := 0
	f.acts.screenOf = func(string) string { // a new, large screen at each read
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%d %s", n, strings.Repeat("x", 1<<20))
	}
	c, _ := f.login()
	ts := httptest.NewServer(f.h)
	t.Cleanup(ts.Close)
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.(*net.TCPConn).SetReadBuffer(4096) //nolint:errcheck
	fmt.Fprintf(conn, "GET /events?look=alice HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: %s=%s\r\n\r\n", c.Name, c.Value)
	status := make([]byte, 12)
	if _, err := io.ReadFull(conn, status); err != nil || string(status) != "HTTP/1.1 200" {
		t.Fatalf("the stream's status line: %q, %v", status, err)
	}
	// Never read again: the stream must end, its pane no longer read,
	// and the browser's look given back.
	sess := f.srv.sessions.find(c.Value, f.now)
	looks := func() int {
		f.srv.sessions.mu.Lock()
		defer f.srv.sessions.mu.Unlock()
		return sess.looks
	}
	if sess == nil || looks() != 1 {
		t.Fatalf("the session's looks: %+v", sess)
	}
	testutil.Eventually(t, 30*time.Second, "the unread stream to end", func() bool { return looks() == 0 })
	before := len(f.acts.screensRead())
	time.Sleep(4 * paneRefresh)
	if after := len(f.acts.screensRead()); after != before {
		t.Errorf("the pane was read %d times more for an ended stream", after-before)
	}
}

// TestReadOnlySessionIsNotShownTheLeadsPane: a read-only page is told
// why it is not shown Claude's lead's own terminal, which is not read for
// it; a teammate's pane it is shown.
func TestReadOnlySessionIsNotShownTheLeadsPane(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.ReadOnly = true })
	c, _ := f.login()
	read := func(name string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 3*paneRefresh)
		defer cancel()
		r := get("/events?look=" + name).WithContext(ctx)
		r.AddCookie(c)
		b, _ := io.ReadAll(f.do(r).Body)
		return string(b)
	}
	if got := read(team.LeadName); !strings.Contains(got, "does not show Claude's lead's own terminal") || strings.Contains(got, "the screen of") {
		t.Errorf("the lead's pane to a read-only session: %q", got)
	}
	if s := f.acts.screensRead(); len(s) != 0 {
		t.Errorf("read for a read-only session: %v", s)
	}
	if got := read("alice"); !strings.Contains(got, "the screen of alice") {
		t.Errorf("alice's pane to a read-only session: %q", got)
	}
}

// feed is a watcher that returns the snapshots a test gives it.
type feed chan *teamwatch.Snapshot

func (f feed) Next(ctx context.Context) (*teamwatch.Snapshot, []teamwatch.Event, error) {
	select {
	case s := <-f:
		return s, nil, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// TestPanesAreListedOnlyWhileAPageIsOpen: a change of the team with no
// page open lists no pane; the first page to open is still told at once
// which panes it may show, and each change while it is open is one pass
// over the panes.
func TestPanesAreListedOnlyWhileAPageIsOpen(t *testing.T) {
	snaps := make(feed)
	f := newFixture(t, func(c *Config) { c.Watch = snaps })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go f.srv.Run(ctx)
	snap := func(n int) *teamwatch.Snapshot {
		s := &teamwatch.Snapshot{Team: "crew", Taken: time.Now()}
		for i := 0; i < n; i++ {
			s.Members = append(s.Members, teamwatch.Member{Name: fmt.Sprintf("m%d", i), Asks: "a permission dialog"})
		}
		return s
	}
	reaches := func() int { f.acts.mu.Lock(); defer f.acts.mu.Unlock(); return f.acts.reaches }
	published := func(v uint64) func() bool {
		return func() bool { _, got, _ := f.srv.boards["crew"].hub.current(); return got >= v }
	}
	snaps <- snap(3)
	testutil.Eventually(t, 5*time.Second, "the first view", published(1))
	snaps <- snap(5)
	testutil.Eventually(t, 5*time.Second, "the second view", published(2))
	if n := reaches(); n != 0 {
		t.Fatalf("panes listed %d times with no page open", n)
	}
	c, _ := f.login()
	ts := httptest.NewServer(f.h)
	t.Cleanup(ts.Close)
	res, _ := streamGET(t, ts, "/events", c)
	br := bufio.NewReader(res.Body)
	first, err := br.ReadString('\n')
	for err == nil && !strings.HasPrefix(first, "data: ") {
		first, err = br.ReadString('\n')
	}
	if strings.Count(first, `"paneView":true`) != 5 {
		t.Errorf("the first view of an opened page: %s", first)
	}
	if n := reaches(); n != 1 {
		t.Errorf("opening a page listed the panes %d times, want once", n)
	}
	snaps <- snap(4)
	testutil.Eventually(t, 5*time.Second, "one pass over the panes for the change", func() bool { return reaches() == 2 })
}
