package teamwatch

import (
	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/team"
)

// The requests waiting for the lead are approval's to find: it reads the
// lead's inbox and archive and paneteam's record of answered ids, which
// the inbox alone cannot tell (Claude Code deletes a reply once it is
// delivered, docs/PROTOCOL.md §6). A members-only snapshot has read the
// lead's inbox while counting it, and its archive's requests with
// approval's own reader, or has both in its memo: approval is given them
// instead of reading again.
func init() {
	waitingRequests = func(t team.Team, cfg *team.Config, leadRequests *leadRequests) (map[string]int, error) {
		var r []approval.Request
		if leadRequests == nil {
			var err error
			if r, err = approval.Pending(t.Root, t.Name); err != nil {
				return nil, err
			}
		} else {
			l, err := approval.FindAmong(t, cfg, leadRequests.Archived, leadRequests.Inbox)
			if err != nil {
				return nil, err
			}
			r = l.Waiting()
		}
		return approval.PerTeammate(r), nil
	}
	archivedRequests = approval.ArchivedRequests
}
