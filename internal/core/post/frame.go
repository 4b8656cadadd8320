package post

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/paneteam/paneteam/mailbox"
)

// FrameFields gives the fields each protocol frame a sender may draft
// takes, by the names paneteam's front ends give them (send's flags);
// "" is plain text, which takes none. A field given to a frame that does
// not take it is a mistake worth saying, not something to drop silently.
// ok is false for a kind that is not a frame a sender may draft. (A
// switch, not a map, so that no paneteam start builds it.)
func FrameFields(kind string) (fields []string, ok bool) {
	switch kind {
	case "":
		return []string{}, true
	case mailbox.TypeShutdownRequest:
		return []string{"request-id", "reason"}, true
	case mailbox.TypeShutdownApproved:
		return []string{"request-id"}, true
	case mailbox.TypeShutdownRejected:
		return []string{"request-id", "reason"}, true
	case mailbox.TypePlanApprovalResponse:
		return []string{"request-id", "approve", "reject", "feedback", "mode"}, true
	case mailbox.TypePermissionResponse:
		return []string{"request-id", "allow", "deny", "input", "reason"}, true
	case mailbox.TypeModeSetRequest:
		return []string{"mode"}, true
	case mailbox.TypeIdle:
		return []string{"idle-reason", "task-id", "completed-status", "reason"}, true
	case mailbox.TypeTaskAssignment:
		return []string{"task-id", "subject", "description"}, true
	}
	return nil, false
}

// FrameFieldNames lists every field of FrameFields once, in the order a
// front end checks them.
var FrameFieldNames = []string{"request-id", "reason", "approve", "reject", "feedback", "allow", "deny",
	"input", "mode", "idle-reason", "task-id", "completed-status", "subject", "description"}

// DraftFrame readies the protocol frame d describes (its Type and
// fields; From, To and Now are the post's) for each recipient, checking
// it once before anything is written, so a wrong field fails no
// recipient half way. What the sender's own records hold is filled in:
// a shutdown_approved carries the sender's pane (Claude Code's lead kills
// only the pane recorded for it, docs/PROTOCOL.md §10); a
// permission_response that allows without Input runs the request's own
// input, found in the sender's inbox or archive (NoRequestError when it is
// not there), since guessing the input of a tool about to run is not an
// option. d.Summary is the entry's preview, except for an
// idle_notification, where it goes into the frame itself.
func (p *Post) DraftFrame(d mailbox.Draft) (Draft, error) {
	for _, s := range []string{d.RequestID, d.Reason, d.Feedback, d.Summary, d.Subject, d.Description, d.TaskID} {
		if !utf8.ValidString(s) {
			return nil, fmt.Errorf("a flag value is not valid UTF-8: convert it first (for example with iconv -t UTF-8)")
		}
	}
	d.From = p.From
	if d.Type == mailbox.TypeShutdownApproved && p.Config != nil {
		if m := p.Config.Member(p.From); m != nil {
			d.PaneID, d.BackendType = m.TmuxPaneID, m.BackendType
		}
	}
	if d.Type == mailbox.TypePermissionResponse && d.Approve != nil && *d.Approve && d.Input == nil && d.RequestID != "" {
		in, err := p.requestInput(d.RequestID)
		if err != nil {
			return nil, err
		}
		d.Input = in
	}
	probe := d
	probe.To, probe.Now = "probe", time.Now()
	if _, _, err := mailbox.Compose(probe); err != nil {
		return nil, &UsageError{err}
	}
	return func(to string, now time.Time) (mailbox.Message, string, error) {
		d := d
		d.To, d.Now = to, now
		v, id, err := mailbox.Compose(d)
		if err != nil {
			return mailbox.Message{}, "", err
		}
		text, err := mailbox.Text(v)
		if err != nil {
			return mailbox.Message{}, "", err
		}
		m := mailbox.Message{Text: text, Summary: d.Summary, Timestamp: mailbox.Timestamp(now)}
		if d.Type == mailbox.TypeIdle {
			m.Summary = "" // it went into the notification itself
		}
		return m, id, nil
	}, nil
}

// NoRequestError is a permission_response allowing a request the
// sender's inbox and archive do not hold, given without the tool input.
type NoRequestError struct{ ID, From string }

func (e *NoRequestError) Error() string {
	return fmt.Sprintf("no permission_request %q in %s's inbox or archive: give the tool input to allow", e.ID, e.From)
}

// requestInput is the input of the permission_request with that id in
// the sender's inbox or its archive.
func (p *Post) requestInput(id string) ([]byte, error) {
	in := OpenInbox(p.Team, nil, p.From, p.Lock)
	cur, err := in.ReadAll()
	if err != nil {
		return nil, err
	}
	old, err := in.Archived()
	if err != nil {
		return nil, err
	}
	for _, m := range append(cur, old...) {
		f, ok := mailbox.Parse(m.Text)
		if r, isReq := f.Value.(*mailbox.PermissionRequest); ok && isReq && r.RequestID == id {
			return r.Input, nil
		}
	}
	return nil, &NoRequestError{ID: id, From: p.From}
}
