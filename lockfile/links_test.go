package lockfile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A teammate or a tool it runs can plant a link where the lock keeps its
// side files. Followed, the queue file's record would be written over the
// start of the file it points to, the lock directory made beside a
// target outside the team's folder, a linked file read and replaced. Each
// is refused with an error naming what was found, and nothing outside
// changes.
func TestPlantedLinksAreNotFollowed(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, target, outside string) string // the path the error must name
	}{
		{"the file itself", func(t *testing.T, target, outside string) string {
			os.Remove(target)
			link(t, outside, target)
			return target
		}},
		{"the queue file", func(t *testing.T, target, outside string) string {
			link(t, outside, QueuePath(target))
			return QueuePath(target)
		}},
		{"the lock directory", func(t *testing.T, target, outside string) string {
			link(t, filepath.Dir(outside), LockPath(target))
			return LockPath(target)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, away := t.TempDir(), t.TempDir()
			target := filepath.Join(dir, "x.json")
			if err := os.WriteFile(target, []byte("[]"), FilePerm); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(away, "bashrc")
			before := []byte("echo hello\n")
			if err := os.WriteFile(outside, before, 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			os.Chtimes(away, old, old)
			named := tc.plant(t, target, outside)

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := Transform(ctx, target, Options{Timeout: time.Second}, func([]byte) ([]byte, error) {
				return []byte(`["written"]`), nil
			})
			if err == nil || !strings.Contains(err.Error(), named) {
				t.Errorf("Transform = %v, want an error naming %s", err, named)
			}
			if got, _ := os.ReadFile(outside); !bytes.Equal(got, before) {
				t.Errorf("the file outside was changed: %q", got)
			}
			ents, _ := os.ReadDir(away)
			if len(ents) != 1 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("files were created outside: %v", names)
			}
		})
	}
}

func link(t *testing.T, to, at string) {
	t.Helper()
	if err := os.Symlink(to, at); err != nil {
		t.Fatal(err)
	}
}
