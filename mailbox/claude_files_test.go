package mailbox_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// TestWatchIgnoresClaudeTempFiles: Claude Code writes an inbox as
// "<inbox>.json.tmp.<8 hex>" and renames it over the inbox
// (docs/PROTOCOL.md §6). The temp file is not an inbox: nothing in it is
// delivered until the rename, and then once. Claude's entries carry its
// new fields, which a reader accepts.
func TestWatchIgnoresClaudeTempFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inboxes")
	os.MkdirAll(dir, 0o700)
	in := mailbox.New(filepath.Join(dir, "alice.json"), lockfile.Options{Timeout: 5 * time.Second})
	os.WriteFile(in.Path, []byte("[]"), 0o600)
	w := startWatch(t, in, mailbox.WatchOptions{Poll: 50 * time.Millisecond})
	entry := `[
  {
    "from": "team-lead",
    "text": "from claude",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "msgV": 1,
    "msg_id": "6f9c1d2e-8a7b-4c3d-9e0f-112233445566",
    "type": "message",
    "read": false,
    "lead_sig": "AilaOLtULtbY3PmNlHuow3NJjPBZrqmdjXN9TTMPtrxLJKtxitIvvZivGGx61qoZNN8jgzwR2BqqT1nuR9GkDg"
  }
]`
	tmp := in.Path + ".tmp.0a1b2c3d"
	os.WriteFile(tmp, []byte(entry), 0o600)
	time.Sleep(300 * time.Millisecond)
	if got := w.texts(); got != "" {
		t.Fatalf("a temp file was read as the inbox: %q", got)
	}
	if err := os.Rename(tmp, in.Path); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "the renamed entry", func() bool { return w.texts() == "from claude" })
	msgs, err := in.ReadAll()
	if err != nil || len(msgs) != 1 {
		t.Fatal(msgs, err)
	}
	m := msgs[0]
	if m.MsgV != 1 || m.MsgID != "6f9c1d2e-8a7b-4c3d-9e0f-112233445566" || m.Type != "message" || m.LeadSig == "" {
		t.Errorf("Claude's fields not read: %+v", m)
	}
	if !mailbox.IsTempFile(filepath.Base(tmp)) || mailbox.IsTempFile("alice.json") {
		t.Error("IsTempFile")
	}
}
