package mailbox_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// A teammate, or a tool it runs, can plant a link in a team's inboxes
// folder. Followed, a send would append a teammate's text to a shell's
// start-up file (the archive), queue it in a folder outside the team, or
// read and replace some other file. Each link is refused with an error
// naming it, and nothing outside changes.
func TestPlantedLinksInAnInboxFolder(t *testing.T) {
	cases := []struct {
		name string
		// plant returns the path the error must name.
		plant func(t *testing.T, in *mailbox.Inbox, outFile, outDir string) string
		// contended sends while another holds the lock, so the message
		// takes the queue.
		contended bool
	}{
		{name: "archive", plant: func(t *testing.T, in *mailbox.Inbox, outFile, _ string) string {
			symlink(t, outFile, in.ArchivePath())
			return in.ArchivePath()
		}},
		{name: "inbox", plant: func(t *testing.T, in *mailbox.Inbox, outFile, _ string) string {
			os.Remove(in.Path)
			symlink(t, outFile, in.Path)
			return in.Path
		}},
		{name: "inboxes folder", plant: func(t *testing.T, in *mailbox.Inbox, _, outDir string) string {
			dir := filepath.Dir(in.Path)
			os.Rename(dir, dir+".old")
			os.Rename(in.Path, filepath.Join(outDir, filepath.Base(in.Path)))
			symlink(t, outDir, dir)
			return dir
		}},
		{name: "spool folder", contended: true, plant: func(t *testing.T, in *mailbox.Inbox, _, outDir string) string {
			symlink(t, outDir, mailbox.SpoolDir(in.Path))
			return mailbox.SpoolDir(in.Path)
		}},
		{name: "queued message", plant: func(t *testing.T, in *mailbox.Inbox, outFile, _ string) string {
			dir := mailbox.SpoolDir(in.Path)
			os.Mkdir(dir, 0o700)
			p := filepath.Join(dir, "00000000000000000001-1-000000000000.msg")
			symlink(t, outFile, p)
			return p
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := archiveInbox(t)
			// One read message, so the next write archives it.
			old := []mailbox.Message{msg("bob", "echo pwned")}
			old[0].Read = true
			b, _ := mailbox.Encode(old)
			if err := os.WriteFile(in.Path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			outDir := t.TempDir()
			outFile := filepath.Join(outDir, "bashrc")
			before := []byte("# my shell\n")
			os.WriteFile(outFile, before, 0o644)
			named := tc.plant(t, in, outFile, outDir)
			was := listing(outDir)

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if tc.contended {
				unlock, err := lockfile.Lock(ctx, in.Path, lockfile.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer unlock()
			}
			err := in.Send(ctx, msg("carol", "rm -rf ~"))
			if err == nil || !strings.Contains(err.Error(), named) {
				t.Errorf("Send = %v, want an error naming %s", err, named)
			}
			if got, _ := os.ReadFile(outFile); !bytes.Equal(got, before) {
				t.Errorf("the file outside the team changed: %q", got)
			}
			if now := listing(outDir); now != was {
				t.Errorf("files outside the team: %s, were %s", now, was)
			}
		})
	}
}

func symlink(t *testing.T, to, at string) {
	t.Helper()
	if err := os.Symlink(to, at); err != nil {
		t.Fatal(err)
	}
}

func listing(dir string) string {
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			names = append(names, p)
		}
		return nil
	})
	return strings.Join(names, " ")
}
