package web

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// actionLog writes one line for every action taken from a page and every
// refusal worth a look (a wrong token, a forged or cross-origin request):
// to the terminal paneteam web runs in and to its log in the state folder.
type actionLog struct {
	mu   sync.Mutex
	out  []io.Writer
	json bool
	now  func() time.Time
}

// Entry is one line of the log.
type Entry struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"` // the first characters of its id
	Addr    string    `json:"addr"`
	Action  string    `json:"action"`
	Result  string    `json:"result"`
}

func (l *actionLog) add(session, addr, action, result string) {
	e := Entry{Time: l.now().UTC(), Session: session, Addr: addr, Action: action, Result: result}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.out {
		if l.json {
			b, _ := json.Marshal(e)
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		who := e.Session
		if who == "" {
			who = "-"
		}
		// Every field is quoted (%q) so that a name or text a teammate
		// wrote cannot start a line of its own in the log.
		fmt.Fprintf(w, "%s web %s session %s: %q: %q\n", e.Time.Format(time.RFC3339), e.Addr, who, e.Action, e.Result)
	}
}
