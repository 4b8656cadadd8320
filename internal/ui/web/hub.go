package web

import (
	"context"
	"encoding/json"
	"errors"
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
		if p, ok := acts.(Panes); ok {
			markPanes(ctx, p, &v, snap)
		}
		if rerr != nil {
			v.Problems = append(v.Problems, "the requests could not be read: "+rerr.Error())
		}
		h.notice(noticesOf(evs))
		h.publish(v)
	}
}
