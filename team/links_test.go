package team

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/lockfile"
)

// A link planted in place of a task file or the config: paneteam reads
// nothing through it, replaces nothing it leads to, and says which file
// it refused.
func TestPlantedLinksInATeamAreRefused(t *testing.T) {
	ctx := context.Background()
	tm, l := newTaskTeam(t)
	task := mustCreate(t, l, NewTask{Subject: "real"})
	outside := filepath.Join(t.TempDir(), "notes.json")
	before := []byte(`{"id":"1","subject":"someone else's","status":"pending","blocks":[],"blockedBy":[]}`)
	os.WriteFile(outside, before, 0o644)
	unchanged := func() {
		t.Helper()
		if b, _ := os.ReadFile(outside); !bytes.Equal(b, before) {
			t.Errorf("the file outside changed: %q", b)
		}
		if ents, _ := os.ReadDir(filepath.Dir(outside)); len(ents) != 1 {
			t.Errorf("files were made outside: %d entries", len(ents))
		}
	}
	named := func(what string, err error, path string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s = %v, want an error naming %s as a link", what, err, path)
		}
	}

	p := l.Path(task.ID)
	os.Remove(p)
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	_, err := l.Get(task.ID)
	named("task get", err, p)
	_, err = l.Update(ctx, task.ID, func(t *Task) error { t.Subject = "pwned"; return nil })
	named("task update", err, p)
	tasks, skipped, err := l.List()
	if err != nil || len(tasks) != 0 || len(skipped) != 1 {
		t.Errorf("task list = %d tasks, %d skipped, %v; want the link skipped alone", len(tasks), len(skipped), err)
	} else {
		named("task list", skipped[0], p)
	}
	unchanged()

	mark := filepath.Join(l.Dir, highWaterMarkName)
	if err := os.Symlink(outside, mark); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Create(ctx, NewTask{Subject: "next"}); err != nil {
		t.Errorf("task create beside a linked high-water mark: %v", err)
	}
	unchanged()

	cfg := tm.ConfigPath()
	saved, _ := os.ReadFile(cfg)
	os.WriteFile(outside, saved, 0o644)
	before, _ = os.ReadFile(outside)
	os.Remove(cfg)
	if err := os.Symlink(outside, cfg); err != nil {
		t.Fatal(err)
	}
	_, err = Load(cfg)
	named("team load", err, cfg)
	_, err = tm.Update(ctx, lockfile.Options{}, func(c *Config) error { c.Description = "pwned"; return nil })
	named("team update", err, cfg)
	unchanged()
}
