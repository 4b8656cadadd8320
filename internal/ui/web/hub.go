package web

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
)

// maxNotices is how many notices the page keeps.
const maxNotices = 20

// hub holds the latest view, as JSON, for every event stream: the
// snapshot is taken and encoded once per change, however many pages are
// open.
type hub struct {
	mu      sync.Mutex
	data    []byte
	version uint64
	changed chan struct{}
	notices []Notice

	// Which panes the page may show is found only while a stream is
	// open (streams > 0): with no page open, no pane is listed. The
	// last view built without (unmarked) is marked when a stream opens.
	streams  int
	unmarked *pending
}

// pending is a view published without its panes marked, and what marks
// it.
type pending struct {
	view  View
	snap  *teamwatch.Snapshot
	panes Panes
	ver   uint64 // the version it was published as
}

func newHub() *hub { return &hub{changed: make(chan struct{})} }

// current is the latest view, its version and a channel closed at the
// next change.
func (h *hub) current() ([]byte, uint64, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.data, h.version, h.changed
}

func (h *hub) publish(v View) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.unmarked = nil
	h.publishLocked(v)
}

func (h *hub) publishLocked(v View) {
	v.Notices = append(v.Notices, h.notices...)
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	h.data = b
	h.version++
	close(h.changed)
	h.changed = make(chan struct{})
}

// kick wakes every stream, so that a revoked one notices and ends.
func (h *hub) kick() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.version++
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *hub) notice(ns []Notice) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.notices = append(h.notices, ns...)
	if len(h.notices) > maxNotices {
		h.notices = h.notices[len(h.notices)-maxNotices:]
	}
}

// follow publishes a view for each snapshot the watcher returns, with
// the requests waiting then, until ctx ends or the team is deleted.
func (h *hub) follow(ctx context.Context, w Snapshots, acts Actions) {
	for {
		snap, evs, err := w.Next(ctx)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, teamwatch.ErrTeamGone) {
			h.publish(View{Error: "the team was deleted", Members: []Member{}, Tasks: []Task{}, Requests: []Request{}, Messages: []Message{}})
			return
		}
		if err != nil {
			continue
		}
		reqs, rerr := acts.Requests(ctx)
		v := viewOf(snap, reqs, time.Now())
		if rerr != nil {
			v.Problems = append(v.Problems, "the requests could not be read: "+rerr.Error())
		}
		h.notice(noticesOf(evs))
		p, ok := acts.(Panes)
		if ok && h.watched() {
			markPanes(ctx, p, &v, snap)
			ok = false
		}
		h.mu.Lock()
		h.unmarked = nil
		if ok {
			h.unmarked = &pending{view: v, snap: snap, panes: p, ver: h.version + 1}
		}
		h.publishLocked(v)
		h.mu.Unlock()
	}
}

func (h *hub) watched() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams > 0
}

// join counts one more open stream, marking first the panes of a view
// published while none was open, so that the stream's first view says
// which panes it may show. leave undoes it.
func (h *hub) join(ctx context.Context) {
	h.mu.Lock()
	h.streams++
	u := h.unmarked
	h.mu.Unlock()
	if u == nil {
		return
	}
	v := u.view
	v.Members = slices.Clone(v.Members)
	markPanes(ctx, u.panes, &v, u.snap)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.unmarked == u && h.version == u.ver { // nothing newer came meanwhile
		h.unmarked = nil
		h.publishLocked(v)
	}
}

func (h *hub) leave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.streams--
}
