package teamwatch

import (
	"os"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/team"
)

// Bounds of the folders a quiet watcher watches for records.
const (
	recordDepth   = 4
	maxRecordDirs = 256
)

// notRecords are the folders of paneteam's state a snapshot writes
// itself (the spending cursors) or never reads (paneteam web's own
// sessions and log): watching them would wake a watcher for nothing.
var notRecords = map[string]bool{"usage": true, "web": true}

// recordDirs are the folders below the team's folder (the answered
// requests, an agent CLI's pane-dialog mark) and paneteam's state folder
// (launch, worktree, budget and remote records) in which a snapshot reads
// records that no write of the team's own files announces. all is false
// when some cannot be watched: the state folder is missing, or there are
// more folders than a watcher watches.
func recordDirs(t team.Team, getenv func(string) string) (dirs []string, all bool) {
	all = true
	walk := func(dir string, skip map[string]bool) {
		var rec func(d string, depth int)
		rec = func(d string, depth int) {
			if len(dirs) >= maxRecordDirs {
				all = false
				return
			}
			dirs = append(dirs, d)
			ents, err := os.ReadDir(d)
			if err != nil {
				return
			}
			for _, e := range ents {
				if !e.IsDir() || (depth == 0 && skip[e.Name()]) {
					continue
				}
				if depth >= recordDepth {
					all = false
					return
				}
				rec(filepath.Join(d, e.Name()), depth+1)
			}
		}
		rec(dir, 0)
	}
	walk(t.Dir(), nil)
	state, err := provenance.StateDir(getenv)
	if err != nil {
		return dirs, false
	}
	if st, err := os.Stat(state); err != nil || !st.IsDir() {
		return dirs, false
	}
	walk(state, notRecords)
	return dirs, all
}
