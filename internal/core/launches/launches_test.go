package launches

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecordsKeptPrivatelyAndReadBack: a launch is read back as written,
// in a 0700 folder as a 0600 file; teams under other roots or of other
// names never mix; a malformed record costs only itself, and a planted
// link is not followed.
func TestRecordsKeptPrivatelyAndReadBack(t *testing.T) {
	state := t.TempDir()
	s := Open(state)
	root := t.TempDir()
	r := Record{Root: root, Team: "crew", Agent: "coder", CLI: "codex", Via: ViaRouter, Program: "/bin/codex",
		Args: []string{"--no-daemon"}, Cwd: "/src", SessionID: "s-1", Backend: "tmux", Pane: "%3"}
	if err := s.Write(r); err != nil {
		t.Fatal(err)
	}
	for _, other := range []Record{
		{Root: t.TempDir(), Team: "crew", Agent: "coder", Via: ViaSpawnPane, Program: "x"},
		{Root: root, Team: "crew-2", Agent: "coder", Via: ViaSpawnPane, Program: "y"},
		{Root: root, Team: "crew", Agent: "alice", CLI: "claude", Via: ViaSpawnPane, Program: "claude"},
	} {
		if err := s.Write(other); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Read(root, "crew", "coder")
	if err != nil || got == nil || got.Program != "/bin/codex" || got.SessionID != "s-1" || got.Pane != "%3" || got.Started == "" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if st, _ := os.Stat(Folder(state)); st.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", st.Mode().Perm())
	}
	files, _ := filepath.Glob(filepath.Join(Folder(state), "*.json"))
	for _, f := range files {
		if st, _ := os.Stat(f); st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	os.WriteFile(filepath.Join(Folder(state), "crew.broken.000000000000.json"), []byte("{"), 0o600)
	list, errs := s.List(root, "crew")
	if len(list) != 2 || list[0].Agent != "alice" || list[1].Agent != "coder" || len(errs) != 1 {
		t.Fatalf("List: %+v, errors %v; want alice and coder, one error", list, errs)
	}
	if rec, err := s.Read(root, "crew", "nobody"); rec != nil || err != nil {
		t.Errorf("no record: %+v, %v", rec, err)
	}
	// A link planted in place of a record is not read through.
	secret := filepath.Join(t.TempDir(), "secret.json")
	os.WriteFile(secret, []byte(`{"team":"crew","agent":"zed","program":"evil"}`), 0o600)
	os.Symlink(secret, s.path(root, "crew", "zed"))
	if rec, err := s.Read(root, "crew", "zed"); err == nil || rec != nil {
		t.Errorf("a planted link was read: %+v, %v", rec, err)
	}
	if err := s.Forget(root, "crew", "coder"); err != nil {
		t.Fatal(err)
	}
	if rec, _ := s.Read(root, "crew", "coder"); rec != nil {
		t.Errorf("forgotten, still read: %+v", rec)
	}
}

// TestRecordsOthersCouldWriteAreRefused: a record, or a records' folder,
// that another user could have written is not believed: reading it
// fails, and List names it and returns nothing of it.
func TestRecordsOthersCouldWriteAreRefused(t *testing.T) {
	state := t.TempDir()
	s := Open(state)
	root := t.TempDir()
	if err := s.Write(Record{Root: root, Team: "crew", Agent: "a", Program: "sleep"}); err != nil {
		t.Fatal(err)
	}
	path := s.path(root, "crew", "a")
	os.Chmod(path, 0o620)
	if rec, err := s.Read(root, "crew", "a"); err == nil || rec != nil {
		t.Errorf("a group-writable record was read: %+v, %v", rec, err)
	}
	if list, errs := s.List(root, "crew"); len(list) != 0 || len(errs) != 1 {
		t.Errorf("List of a group-writable record: %+v, %v", list, errs)
	}
	os.Chmod(path, 0o600)
	os.Chmod(Folder(state), 0o777)
	if rec, err := s.Read(root, "crew", "a"); err == nil || rec != nil {
		t.Errorf("a record in a folder anyone may write was read: %+v, %v", rec, err)
	}
	os.Chmod(Folder(state), 0o700)
	if rec, err := s.Read(root, "crew", "a"); err != nil || rec == nil {
		t.Errorf("the record, private again: %+v, %v", rec, err)
	}
}
