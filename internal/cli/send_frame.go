package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/mailbox"
)

// A protocol message from send's flags: --type and the fields it takes.

// frameFlags are the flags a protocol message (--type) is drafted from.
type frameFlags struct {
	RequestID, Reason, Feedback, Mode, IdleReason string
	TaskID, CompletedStatus, Subject, Description string
	Input                                         string
	Approve, Reject, Allow, Deny                  bool
}

// drafter is the message for each recipient: the text, or the protocol
// frame --type names drafted from the flags (post.DraftFrame).
func drafter(env Env, o sendOptions, p *post.Post) (post.Draft, error) {
	if err := checkTypeFlags(o); err != nil {
		return nil, err
	}
	kind, f := o.Type, o.Frame
	if kind == "" {
		text, err := messageText(env, o.Args)
		if err != nil {
			return nil, err
		}
		return post.Plain(text, o.Summary), nil
	}
	if len(o.Args) > 0 {
		return nil, usagef("--type %s takes no TEXT: its fields come from flags (see paneteam send --help)", kind)
	}
	d := mailbox.Draft{
		Type: kind, RequestID: f.RequestID, Reason: f.Reason,
		Feedback: f.Feedback, Mode: f.Mode, IdleReason: f.IdleReason,
		TaskID: f.TaskID, CompletedStatus: f.CompletedStatus, Summary: o.Summary,
		Subject: f.Subject, Description: f.Description,
	}
	switch {
	case f.Approve || f.Allow:
		d.Approve = ptr(true)
	case f.Reject || f.Deny:
		d.Approve = ptr(false)
	}
	if s := f.Input; s != "" && kind == mailbox.TypePermissionResponse && f.Allow {
		if !json.Valid([]byte(s)) {
			return nil, usagef("--input is not valid JSON: give the tool input as a JSON object")
		}
		d.Input = json.RawMessage(s)
	}
	draft, err := p.DraftFrame(d)
	var none *post.NoRequestError
	if errors.As(err, &none) {
		return nil, fmt.Errorf("no permission_request %q in %s's inbox or archive: pass --input JSON with the tool input to allow", none.ID, none.From)
	}
	return draft, postError(err)
}

var sendTypes = mailbox.Composable

// checkTypeFlags refuses a --type that is not one, and a flag that is not
// part of the message asked for (post.FrameFields).
func checkTypeFlags(o sendOptions) error {
	kind := o.Type
	allowed, ok := post.FrameFields(kind)
	if !ok {
		return usagef("unknown --type %q: use one of %s", kind, strings.Join(sendTypes, ", "))
	}
	for _, f := range post.FrameFieldNames {
		if slices.Contains(o.Given, f) && !slices.Contains(allowed, f) {
			if kind == "" {
				return usagef("--%s belongs to a protocol message: add --type (see paneteam send --help)", f)
			}
			return usagef("--%s is not part of a %s message (it takes: --%s)", f, kind, strings.Join(allowed, ", --"))
		}
	}
	if o.Frame.Approve && o.Frame.Reject {
		return usagef("give --approve or --reject, not both")
	}
	if o.Frame.Allow && o.Frame.Deny {
		return usagef("give --allow or --deny, not both")
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
