package land

import (
	"fmt"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Report is the latest message member sent lead in team t: what the
// teammate said of its work, for a pull request's title and body. Read
// messages paneteam archived count too. It only reads: no lock is taken,
// nothing is marked read, no idle notice is summarised away. Protocol
// messages (idle notices, shutdown answers, plan requests) are not
// reports. ok is false when member sent lead no message.
func Report(t team.Team, lead, member string) (m mailbox.Message, ok bool, err error) {
	in := mailbox.New(t.InboxPath(lead), lockfile.Options{})
	archived, err := in.Archived()
	if err != nil {
		return m, false, fmt.Errorf("read %s's archived messages: %w", lead, err)
	}
	current, err := in.ReadAll()
	if err != nil {
		return m, false, fmt.Errorf("read %s's inbox: %w", lead, err)
	}
	// The archive holds older messages than the inbox.
	for _, msg := range append(archived, current...) {
		if msg.From != member || msg.Text == "" {
			continue
		}
		if _, protocol := mailbox.Parse(msg.Text); protocol {
			continue
		}
		m, ok = msg, true
	}
	return m, ok, nil
}
