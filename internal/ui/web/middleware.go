package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// guardHost answers only to a Host header the server is known by: the
// loopback names and those it was given. A page of another name whose
// DNS points at 127.0.0.1 (DNS rebinding) is refused before anything
// else runs.
func (s *Server) guardHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !s.hosts[strings.ToLower(strings.Trim(host, "[]"))] {
			s.log.add("", r.RemoteAddr, r.Method+" "+r.URL.Path, "refused: Host "+r.Host+" is not a name this server answers to")
			http.Error(w, "refused: this server does not answer to that Host (paneteam web --host NAME adds one)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// csp allows the page's own script, styles, images, event stream,
// manifest and service worker (/sw.js) and nothing else: no inline
// script, no framing, no form to another place.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// headers sets what every answer carries. No Access-Control-* header is
// ever set: another origin can read nothing.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

type sessionKey struct{}

func sessionOf(r *http.Request) *session {
	s, _ := r.Context().Value(sessionKey{}).(*session)
	return s
}

// withSession lets through a browser with a live session. A GET that
// brings the token (?token=) is given a session cookie and sent to the
// same address without the token, so that it leaves the address bar and
// the history. A wrong token or session cookie is a guess: slowed and
// logged.
func (s *Server) withSession(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		now := s.cfg.Now()
		if q := r.URL.Query(); q.Has("token") {
			s.login(w, r, q.Get("token"))
			return
		}
		c, err := r.Cookie(cookieName)
		if err != nil {
			s.log.add("", r.RemoteAddr, r.Method+" "+r.URL.Path, "refused: no session")
			refuse(w, r, http.StatusUnauthorized, "no session: open the URL that paneteam web printed (it carries ?token=)")
			return
		}
		sess := s.sessions.find(c.Value, now)
		if sess == nil {
			n, d := s.guesses.wrong()
			s.log.add("", r.RemoteAddr, r.Method+" "+r.URL.Path, "refused: unknown or expired session ("+itoaWrong(n, d)+")")
			refuse(w, r, http.StatusUnauthorized, "this session has ended: open the URL that paneteam web printed again")
			return
		}
		// A page of another origin (another port of this host is the same
		// site, so SameSite does not stop its cookie) may not even ask.
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			if r.Header.Get("Sec-Fetch-Mode") != "navigate" {
				s.log.add(sess.short(), r.RemoteAddr, r.Method+" "+r.URL.Path, "refused: a request from another origin")
				refuse(w, r, http.StatusForbidden, "refused: this request came from another origin")
				return
			}
		}
		next(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, sess)))
	}
}

func (s *Server) login(w http.ResponseWriter, r *http.Request, tok string) {
	if !equal(tok, s.currentToken()) {
		n, d := s.guesses.wrong()
		s.log.add("", r.RemoteAddr, "login", "refused: wrong token ("+itoaWrong(n, d)+")")
		refuse(w, r, http.StatusForbidden, "wrong token: open the URL that paneteam web printed")
		return
	}
	s.guesses.right()
	sess, err := s.sessions.create(r.RemoteAddr, s.cfg.ReadOnly, s.cfg.Now())
	if err != nil {
		http.Error(w, "could not make a session", http.StatusInternalServerError)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: sess.id, Path: "/", HttpOnly: true, Secure: s.cfg.TLS,
		SameSite: http.SameSiteStrictMode, MaxAge: int(s.cfg.SessionTTL.Seconds())})
	mode := "full"
	if sess.readOnly {
		mode = "read-only"
	}
	s.log.add(sess.short(), r.RemoteAddr, "login", "a new "+mode+" session")
	q := r.URL.Query()
	q.Del("token")
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func itoaWrong(n int64, d time.Duration) string {
	return "wrong attempt " + strconv.FormatInt(n, 10) + " in a row, held " + d.String()
}

// withAction guards a change: a POST with a live session that may act,
// the session's anti-forgery token in its header, a JSON body of
// bounded size. The origin part is http.CrossOriginProtection's, before
// this.
func (s *Server) withAction(next func(w http.ResponseWriter, r *http.Request, b *board) (string, error)) http.HandlerFunc {
	return s.withSession(func(w http.ResponseWriter, r *http.Request) {
		sess := sessionOf(r)
		action := strings.TrimPrefix(r.URL.Path, "/api/")
		if !equal(r.Header.Get(csrfHeader), sess.csrf) {
			s.log.add(sess.short(), r.RemoteAddr, action, "refused: no or wrong anti-forgery token")
			refuse(w, r, http.StatusForbidden, "refused: this request lacks the page's anti-forgery token")
			return
		}
		if sess.readOnly {
			s.log.add(sess.short(), r.RemoteAddr, action, "refused: a read-only session")
			refuse(w, r, http.StatusForbidden, "refused: this is a read-only view")
			return
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			refuse(w, r, http.StatusUnsupportedMediaType, "send JSON")
			return
		}
		b, err := s.boardOf(r)
		if err != nil {
			s.log.add(sess.short(), r.RemoteAddr, action, "refused: "+err.Error())
			refuse(w, r, http.StatusNotFound, err.Error())
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		what, err := next(w, r, b)
		if len(s.order) > 1 {
			what = b.Team + ": " + what // which team, in the log
		}
		if err != nil {
			s.log.add(sess.short(), r.RemoteAddr, what, "refused: "+err.Error())
			writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
			return
		}
		s.log.add(sess.short(), r.RemoteAddr, what, "done")
		writeJSON(w, http.StatusOK, map[string]string{"ok": what})
	})
}

func refuse(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/events" {
		writeJSON(w, code, map[string]string{"error": msg})
		return
	}
	http.Error(w, msg, code)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v) //nolint:errcheck
}
