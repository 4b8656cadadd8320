package tmux_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// TestLockSurvivesItsFileBeingRemoved: a paneteam waiting for the pane
// lock while its holder removes the file (as RemoveLock does) ends up
// holding the file that is in place, so a newcomer is still excluded.
func TestLockSurvivesItsFileBeingRemoved(t *testing.T) {
	srv := tmux.Server{Socket: filepath.Join(testutil.ShortTempDir(t), "s")}
	ctx := ctxT(t)
	unlock, err := srv.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func(), 1)
	go func() {
		u, err := srv.Lock(ctx)
		if err != nil {
			t.Error(err)
			u = func() {}
		}
		got <- u
	}()
	time.Sleep(100 * time.Millisecond) // the waiter has opened the file and waits
	if err := os.Remove(srv.Socket + tmux.LockSuffix); err != nil {
		t.Fatal(err)
	}
	unlock()
	waiterUnlock := <-got
	defer waiterUnlock()
	ok, err := flock.New(srv.Socket + tmux.LockSuffix).TryLock()
	if err != nil || ok {
		t.Fatalf("a newcomer took the lock (%v, %v) while the waiter held it: two holders at once", ok, err)
	}
}

// TestStaleLocks removes the locks of servers that are gone (socket
// missing, or refusing connections) and keeps the rest.
func TestStaleLocks(t *testing.T) {
	srv := testutil.TmuxServer(t) // a live server: its lock stays
	dir := filepath.Dir(srv.Socket)
	touch := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	live := touch("s" + tmux.LockSuffix)
	missing := touch("gone" + tmux.LockSuffix)
	held := touch("held" + tmux.LockSuffix)
	other := touch("notes.txt")
	// A socket whose server died: the file stays, connect is refused.
	l, err := net.Listen("unix", filepath.Join(dir, "dead"))
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	dead := touch("dead" + tmux.LockSuffix)
	notSocket := touch("plain")
	besidePlain := touch("plain" + tmux.LockSuffix)
	holder := flock.New(held)
	if ok, err := holder.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer holder.Unlock()

	want := []string{dead, missing}
	got, err := tmux.StaleLocks(dir, true)
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("dry run: %q, %v; want %q", got, err, want)
	}
	if _, err := os.Stat(dead); err != nil {
		t.Fatal("a dry run removed a lock")
	}
	got, err = tmux.StaleLocks(dir, false)
	sort.Strings(got)
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("StaleLocks = %q, %v; want %q", got, err, want)
	}
	for _, p := range want {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there", p)
		}
	}
	for _, p := range []string{live, held, other, notSocket, besidePlain, srv.Socket} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if _, err := srv.Run(context.Background(), "list-sessions"); err != nil {
		t.Fatalf("the live server: %v", err)
	}
}
