package teamwatch

import "github.com/paneteam/paneteam/internal/core/approval"

// The requests waiting for the lead are approval's to find: it reads the
// lead's inbox and archive and paneteam's record of answered ids, which
// the inbox alone cannot tell (Claude Code 2.1.330 deletes a reply once it
// is delivered).
func init() {
	waitingRequests = func(root, t string) (map[string]int, error) {
		r, err := approval.Pending(root, t)
		if err != nil {
			return nil, err
		}
		return approval.PerTeammate(r), nil
	}
}
