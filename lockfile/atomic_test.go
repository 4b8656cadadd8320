package lockfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteAtomicReplacesWith0600(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.json")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := WriteAtomic(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "new" || st.Mode().Perm() != FilePerm {
		t.Fatalf("%q %v", b, st.Mode().Perm())
	}
}

func TestCreateExclusiveNeverOverwrites(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.json")
	if created, err := CreateExclusive(p, []byte("[]")); err != nil || !created {
		t.Fatal(created, err)
	}
	os.WriteFile(p, []byte(`["kept"]`), 0o600)
	if created, err := CreateExclusive(p, []byte("[]")); err != nil || created {
		t.Fatal(created, err)
	}
	if b, _ := os.ReadFile(p); string(b) != `["kept"]` {
		t.Fatalf("overwritten: %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*.tmp"))
	if len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

func TestAbandonedTempFilesAreSwept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "alice.json")
	old := filepath.Join(dir, ".alice.json.123.tmp")
	fresh := filepath.Join(dir, ".alice.json.456.tmp")
	other := filepath.Join(dir, ".bob.json.789.tmp")
	for _, f := range []string{old, fresh, other} {
		os.WriteFile(f, []byte("x"), 0o600)
	}
	long := time.Now().Add(-2 * abandonedAfter)
	os.Chtimes(old, long, long)
	os.Chtimes(other, long, long)
	// One write in sweepOneIn sweeps: 200 writes all skipping it has a
	// chance of 1 in 10^11.
	for i := 0; i < 200; i++ {
		if err := WriteAtomic(p, []byte("[]")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(old); os.IsNotExist(err) {
			break
		}
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatal("an abandoned temp file was kept")
	}
	for _, f := range []string{fresh, other} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s removed: a live writer's temp file, or another file's", f)
		}
	}
}

// An existing file is the common case (every send ensures its inbox): it
// must cost no write, which the folder's unchanged mtime shows.
func TestCreateExclusiveOnExistingFileWritesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	os.WriteFile(p, []byte(`["kept"]`), 0o600)
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(dir, past, past)
	if created, err := CreateExclusive(p, []byte("[]")); err != nil || created {
		t.Fatal(created, err)
	}
	if st, _ := os.Stat(dir); !st.ModTime().Equal(past) {
		t.Fatalf("folder changed (mtime %v): a temp file was written for a file that exists", st.ModTime())
	}
}
