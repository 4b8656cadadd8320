package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/approval"
)

type pageData struct {
	Team     string
	Teams    []string // every team shown, for the switch; one team, no switch
	CSRF     string
	ReadOnly bool
}

// index is the page: a shell html/template fills with the team's name
// and the session's anti-forgery token (as attribute values, escaped);
// the script fills the rest from the event stream, with textContent.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	sess := sessionOf(r)
	b, err := s.boardOf(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	d := pageData{Team: b.Team, CSRF: sess.csrf, ReadOnly: sess.readOnly}
	if len(s.order) > 1 {
		d.Teams = s.order
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.page.Execute(w, d); err != nil {
		s.log.add(sess.short(), r.RemoteAddr, "page", "could not be drawn: "+err.Error())
	}
}

func (s *Server) manifest(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/manifest+json")
	b, err := assets.ReadFile("assets/manifest.webmanifest")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Write(b) //nolint:errcheck
}

// keepAlive is how often an idle event stream gets a comment line, so a
// proxy in front (tailscale serve) does not close it as dead.
const keepAlive = 25 * time.Second

// eventWrite bounds each write of an event stream: a client that stops
// reading (gone without closing, half-open) ends its stream, and nothing
// is read for it any more, once the connection's buffers are full.
var eventWrite = 10 * time.Second

// stream writes one event stream's events, each with its write deadline.
type stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (st stream) write(format string, args ...any) error {
	st.rc.SetWriteDeadline(time.Now().Add(eventWrite)) //nolint:errcheck // a writer without deadlines (a test's recorder) still writes
	if _, err := fmt.Fprintf(st.w, format, args...); err != nil {
		return err
	}
	return st.rc.Flush()
}

// events streams the view, as one Server-Sent Event per change the team
// watcher reports: nothing is sent, or computed, while nothing changes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	sess := sessionOf(r)
	b, err := s.boardOf(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	// ?look=NAME: the page shows NAME's pane, read while it looks.
	lk := newLook(r, b, sess)
	if lk != nil {
		if !s.sessions.takeLook(sess) {
			s.log.add(sess.short(), r.RemoteAddr, "look at "+line(lk.name)+"'s pane", fmt.Sprintf("refused: %d streams of this session read panes already", maxLooks))
			refuse(w, r, http.StatusTooManyRequests, fmt.Sprintf("refused: this browser reads %d panes already; close a page first", maxLooks))
			return
		}
		defer s.sessions.dropLook(sess)
	}
	defer lk.stop()
	b.hub.join(r.Context())
	defer b.hub.leave()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	st := stream{w: w, rc: http.NewResponseController(w)}
	if st.rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	var sent uint64
	for {
		data, version, changed := b.hub.current()
		if version != sent && data != nil {
			if s.sessions.find(sess.id, s.cfg.Now()) == nil {
				return // revoked or expired: the stream ends with it
			}
			if st.write("event: view\ndata: %s\n\n", data) != nil {
				return
			}
			sent = version
			if s.sendPane(st, r, sess, lk) != nil {
				return
			}
		}
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-lk.due():
			err = s.sendPane(st, r, sess, lk)
		case <-b.typed.wait():
			err = s.sendPane(st, r, sess, lk)
		case <-changed:
		case <-tick.C:
			if s.sessions.find(sess.id, s.cfg.Now()) == nil {
				return
			}
			err = st.write(": keep-alive\n\n")
		}
		if err != nil {
			return
		}
	}
}

type answerBody struct {
	ID       string `json:"id"`
	From     string `json:"from"`
	Approve  bool   `json:"approve"`
	Feedback string `json:"feedback"`
	Mode     string `json:"mode"`
}

func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the request is not what the page sends: %w", err)
	}
	return nil
}

// answer approves or denies a waiting request, by id and teammate, as
// 'paneteam approve' and 'deny' do.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, bd *board) (string, error) {
	var b answerBody
	if err := decode(r, &b); err != nil {
		return "answer", err
	}
	verb := "deny"
	if b.Approve {
		verb = "approve"
	}
	what := fmt.Sprintf("%s %s from %s", verb, b.ID, b.From)
	if b.ID == "" || b.From == "" {
		return what, errors.New("name the request and its teammate")
	}
	return what, bd.Actions.Answer(r.Context(), b.ID, b.From, approval.Decision{Approve: b.Approve, Feedback: b.Feedback, Mode: b.Mode})
}

type sendBody struct {
	To   string `json:"to"`
	Text string `json:"text"`
}

// send writes a message, as 'paneteam send' does.
func (s *Server) send(w http.ResponseWriter, r *http.Request, bd *board) (string, error) {
	var b sendBody
	if err := decode(r, &b); err != nil {
		return "send", err
	}
	what := "send to " + b.To
	if b.To == "" {
		return what, errors.New("name the teammate to send to, or everyone")
	}
	if strings.TrimSpace(b.Text) == "" {
		return what, errors.New("the message is empty")
	}
	return what, bd.Actions.Send(r.Context(), b.To, b.Text)
}

type stopBody struct {
	Name string `json:"name"`
}

// stop asks a teammate to shut down, as 'paneteam shutdown' does.
func (s *Server) stop(w http.ResponseWriter, r *http.Request, bd *board) (string, error) {
	var b stopBody
	if err := decode(r, &b); err != nil {
		return "stop", err
	}
	what := "stop " + b.Name
	if b.Name == "" {
		return what, errors.New("name the teammate to stop")
	}
	res, err := bd.Actions.Stop(r.Context(), b.Name)
	if err == nil && res != "" {
		what += ": " + res
	}
	return what, err
}

// resume brings the team back, as 'paneteam resume --team' does: every
// member whose pane went away starts again. What it did is the log's
// line and the page's answer.
func (s *Server) resume(w http.ResponseWriter, r *http.Request, bd *board) (string, error) {
	var b struct{}
	if err := decode(r, &b); err != nil {
		return "resume", err
	}
	lines, err := bd.Actions.Resume(r.Context())
	what := "resume"
	if len(lines) > 0 {
		what += ": " + strings.Join(lines, "; ")
	}
	return what, err
}
