package post

import (
	"context"
	"errors"
	"fmt"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// SendText posts text to to (a member, or Everyone) as 'paneteam send
// --to NAME TEXT' does, for a front end that has no flags of its own
// (the dashboard, the web view): the recipient a member (Recipients),
// the sender the caller's choice (Sender: team-lead, or in a team a live
// Claude Code leads, the person's own name), its team colour, refused
// when a keyed teammate would not believe it, signed, written under
// Claude Code's lock (SendEach).
func (c Caller) SendText(ctx context.Context, t team.Team, lock lockfile.Options, to, text string) error {
	cfg, err := team.Load(t.ConfigPath())
	if err != nil {
		return err
	}
	from, err := c.Sender(cfg, "")
	if err != nil {
		return err
	}
	names, err := Recipients(t, cfg, from, Address{To: to})
	var re *RecipientError
	if errors.As(err, &re) {
		return fmt.Errorf("%q is not a member of team %s", to, t.Name)
	} else if err != nil {
		return err
	}
	p, err := c.Open(t, cfg, lock, from, names, "")
	if err != nil {
		return err
	}
	_, err = p.SendEach(ctx, names, Plain(text, ""))
	return err
}
