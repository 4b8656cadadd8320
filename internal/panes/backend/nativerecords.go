package backend

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// paneteam's records of the panes it opened in a terminal live in its
// state folder, one folder per terminal instance
// (<state>/panes/<terminal>-<address key>): a file per pane,
// pane-<hex handle>, holding the member's agent id and the folder its
// driver keeps that pane's files in, plus address.json, the terminal's
// address, so that 'cleanup --orphans' can ask a terminal no team names
// any more. A record outlives its pane when the teammate exits by itself
// or the person closes the pane or the window; such records are pruned
// whenever paneteam has a complete, fresh List of that terminal's panes.

// recordSettle: a record younger than this, measured from just before a
// List was asked for, is never pruned by that List. A spawn writes its
// record after the terminal made the pane, so a record written after the
// List began may name a pane the List did not see yet; and a file's time
// comes from the kernel's coarse clock (a tick behind time.Now), or from
// a file server's, or is rounded down to the file system's granularity.
const recordSettle = 2 * time.Second

// addressName is the file, in a terminal's records folder, that holds the
// terminal's address.
const addressName = "address.json"

// recordPrefix starts every pane record's file name.
const recordPrefix = "pane-"

// nativeListsAll says which terminals' List sees every pane of the
// terminal. Zellij's driver lists only the programs it launched with the
// same folder (native.Env.Dir, one per team): its List proves nothing
// about a record whose pane was opened with another.
var nativeListsAll = map[string]bool{
	team.BackendKitty:   true,
	team.BackendWezTerm: true,
	team.BackendGhostty: true,
}

// recordAddress is address.json.
type recordAddress struct {
	Terminal string            `json:"terminal"`
	Env      map[string]string `json:"env"`
	// Bin is the terminal's command line program as the spawn found it
	// on its PATH, for a caller whose PATH has none (cron's).
	Bin string `json:"bin,omitempty"`
}

// paneRecord is one pane's record.
type paneRecord struct {
	Agent string
	// Scope is the folder the driver keeps the pane's files in ("" in a
	// record written before paneteam kept it).
	Scope string
}

func (r paneRecord) bytes() []byte { return []byte(r.Agent + "\n" + r.Scope + "\n") }

func parseRecord(b []byte) paneRecord {
	agent, scope, _ := strings.Cut(string(b), "\n")
	return paneRecord{Agent: agent, Scope: strings.TrimSuffix(scope, "\n")}
}

// recordName is a pane's record file: its handle, made a safe file name.
func recordName(h native.Handle) string {
	return recordPrefix + hex.EncodeToString([]byte(h))
}

// recordHandle is the handle a record file name stands for.
func recordHandle(name string) (native.Handle, bool) {
	s, ok := strings.CutPrefix(name, recordPrefix)
	if !ok {
		return "", false
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) == 0 {
		return "", false
	}
	return native.Handle(b), true
}

// readRecord reads the record of pane h in dir.
func readRecord(dir string, h native.Handle) (paneRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, recordName(h)))
	if err != nil {
		return paneRecord{}, err
	}
	return parseRecord(b), nil
}

// writeRecord records that pane h of the terminal named name, at addr,
// is agent's, then the terminal's address (and program, bin) beside it. A pruner that
// removed the folder as the record was written (it had just become
// empty) makes the write fail with "not exist": the folder is made again.
func writeRecord(dir, name string, addr map[string]string, bin string, h native.Handle, r paneRecord) error {
	a, err := json.Marshal(recordAddress{Terminal: name, Env: addr, Bin: bin})
	if err != nil {
		return err
	}
	for try := 0; ; try++ {
		err = os.MkdirAll(dir, lockfile.DirPerm)
		if err == nil {
			err = lockfile.WriteAtomic(filepath.Join(dir, recordName(h)), r.bytes())
		}
		if err == nil {
			err = lockfile.WriteAtomic(filepath.Join(dir, addressName), a)
		}
		if err == nil || !errors.Is(err, fs.ErrNotExist) || try == 3 {
			return err
		}
	}
}

// pruneRecords removes, from the terminal's records folder dir, the
// records of panes not in live: the terminal's complete answer to a
// List begun at asked, by the driver keeping its files in scope. It
// leaves a record younger than that List (recordSettle) and, where the
// List sees only the panes opened from scope, a record of another scope.
// The folder goes once no record is left in it. It returns the records
// removed (or, with dryRun, that would be); failures leave records,
// which a later List prunes.
func pruneRecords(dir, name, scope string, live []native.Handle, asked time.Time, dryRun bool) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	left := 0
	for _, e := range entries {
		h, ok := recordHandle(e.Name())
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !stale(path, name, scope, h, live, asked) {
			left++
			continue
		}
		if dryRun {
			removed = append(removed, path)
			left++
			continue
		}
		if err := os.Remove(path); err == nil {
			removed = append(removed, path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			left++
		}
	}
	if left == 0 && !dryRun {
		removeRecordsDir(dir)
	}
	return removed
}

// stale says whether the record at path names a pane the List proves
// gone.
func stale(path, name, scope string, h native.Handle, live []native.Handle, asked time.Time) bool {
	if slices.Contains(live, h) {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.ModTime().Before(asked.Add(-recordSettle)) {
		return false
	}
	if nativeListsAll[name] {
		return true
	}
	b, err := os.ReadFile(path)
	return err == nil && scope != "" && parseRecord(b).Scope == scope
}

// removeRecordsDir removes a records folder holding no record. A spawn
// may write a record into it meanwhile: rmdir then fails (the folder is
// not empty), and the address it took away is put back.
func removeRecordsDir(dir string) {
	addr, _ := os.ReadFile(filepath.Join(dir, addressName))
	os.Remove(filepath.Join(dir, addressName))
	if err := os.Remove(dir); err != nil && len(addr) > 0 {
		if _, serr := os.Stat(dir); serr == nil {
			lockfile.WriteAtomic(filepath.Join(dir, addressName), addr)
		}
	}
}

// forgetRecord removes pane h's record, and the folder if it was the last.
func forgetRecord(dir string, h native.Handle) {
	os.Remove(filepath.Join(dir, recordName(h)))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if _, ok := recordHandle(e.Name()); ok {
			return
		}
	}
	removeRecordsDir(dir)
}

// PruneNativeRecords prunes every terminal's records folder in
// paneteam's state folder whose terminal answers a List, as a spawn or
// status in that terminal would, and returns the records removed (with
// dryRun: that would be). A folder whose terminal does not answer (the
// terminal was quit, its socket is gone, or it runs on another display)
// is left as it is and not reported: an unanswered List proves nothing
// about its panes, which may still be open.
func PruneNativeRecords(ctx context.Context, env Env, dryRun bool) ([]string, error) {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	// An environment that names no home (cron under env -i) does not
	// say where paneteam's state folder is: its records are left alone
	// rather than looked for in the process's own home.
	if env.Getenv("PANETEAM_STATE_DIR") == "" && env.Getenv("XDG_STATE_HOME") == "" && env.Getenv("HOME") == "" {
		return nil, nil
	}
	state, err := provenance.StateDir(env.Getenv)
	if err != nil {
		return nil, err
	}
	folders, err := os.ReadDir(filepath.Join(state, "panes"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, f := range folders {
		dir := filepath.Join(state, "panes", f.Name())
		b, err := os.ReadFile(filepath.Join(dir, addressName))
		var a recordAddress
		// The folder's name is the address's: an address.json written
		// (or copied) into another terminal's folder would have that
		// folder's records judged by the wrong terminal.
		if !f.IsDir() || err != nil || json.Unmarshal(b, &a) != nil || !IsNative(a.Terminal) ||
			f.Name() != recordsFolder(a.Terminal, a.Env) {
			continue
		}
		for _, scope := range recordScopes(state, dir, a.Terminal) {
			removed = append(removed, pruneFolder(ctx, env, dir, a, scope, dryRun)...)
		}
	}
	return removed, nil
}

// recordScopes are the driver folders to list the terminal's panes from
// to judge every record in dir: any one for a terminal whose List sees
// every pane, else each record's own that still exists and is one of
// paneteam's own driver folders (a record without one, or with an older
// paneteam's folder in the team's, cannot be judged).
func recordScopes(state, dir, name string) []string {
	if nativeListsAll[name] {
		return []string{os.TempDir()}
	}
	entries, _ := os.ReadDir(dir)
	var scopes []string
	for _, e := range entries {
		h, ok := recordHandle(e.Name())
		if !ok {
			continue
		}
		r, err := readRecord(dir, h)
		if err != nil || r.Scope == "" || slices.Contains(scopes, r.Scope) {
			continue
		}
		if fi, err := os.Stat(r.Scope); err == nil && fi.IsDir() && ownDriverDir(state, name, r.Scope) {
			scopes = append(scopes, r.Scope)
		}
	}
	return scopes
}

// pruneFolder lists the terminal at a from scope and prunes dir by it.
// A dry run lists through a driver that changes no file either.
func pruneFolder(ctx context.Context, env Env, dir string, a recordAddress, scope string, dryRun bool) []string {
	if !listNames(a.Terminal, a.Env) {
		return nil
	}
	t, err := newDriver(env, a.Terminal, a.Env, scope, dryRun, a.Bin)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, nativeProbeTimeout)
	defer cancel()
	asked := time.Now()
	live, err := t.List(ctx)
	if err != nil {
		return nil
	}
	return pruneRecords(dir, a.Terminal, scope, live, asked, dryRun)
}

// recordedBin is the terminal's program recorded in the records folder
// dir ("" when none is).
func recordedBin(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, addressName))
	var a recordAddress
	if err != nil || json.Unmarshal(b, &a) != nil {
		return ""
	}
	return a.Bin
}
