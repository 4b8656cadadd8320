package provenance

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// Store keeps the private signing keys of the Claude Code teammates
// paneteam started, one 0600 file per teammate in a 0700 folder of
// paneteam's own. It lives outside the Claude config folder on purpose:
// every teammate can read that folder, and a teammate holding its lead's
// key could forge its lead.
//
// A teammate is named by its inbox path (teams/<team>/inboxes/<name>.json
// under its root): that is what a writer has in hand, and it tells teams
// under different roots apart. A re-launch replaces the key; Forget
// removes it when the teammate leaves.
type Store struct {
	Dir string
}

// Folder and file modes of the store.
const (
	dirPerm  = 0o700
	filePerm = 0o600
)

// StateDir is paneteam's own state folder, outside the Claude config
// folder: $PANETEAM_STATE_DIR when set (tests point it at a temporary
// folder), else $XDG_STATE_HOME/paneteam, else ~/.local/state/paneteam.
func StateDir(getenv func(string) string) (string, error) {
	if d := getenv("PANETEAM_STATE_DIR"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("PANETEAM_STATE_DIR %q: %w", d, err)
		}
		return abs, nil
	}
	// The XDG spec says to ignore a relative XDG_STATE_HOME.
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "paneteam"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find paneteam's state folder: %w (set PANETEAM_STATE_DIR)", err)
		}
		home = h
	}
	return filepath.Join(home, ".local", "state", "paneteam"), nil
}

// DefaultStore is the key folder, "keys" in StateDir.
func DefaultStore(getenv func(string) string) (Store, error) {
	d, err := StateDir(getenv)
	if err != nil {
		return Store{}, err
	}
	return Store{Dir: filepath.Join(d, "keys")}, nil
}

// keyFile is the stored form of a Key.
type keyFile struct {
	Inbox string `json:"inbox"`
	Stamp int64  `json:"stamp"`
	Seed  string `json:"seed"`
}

// path is the key file of the teammate whose inbox is inbox:
// "<team>.<name>.<12 hex of the inbox path>.key", readable by a person
// and unique per root.
func (s Store) path(inbox string) (string, error) {
	abs, err := filepath.Abs(inbox)
	if err != nil {
		return "", fmt.Errorf("signing key for %s: %w", inbox, err)
	}
	sum := sha256.Sum256([]byte(abs))
	name := strings.TrimSuffix(filepath.Base(abs), ".json")
	teamDir := filepath.Base(filepath.Dir(filepath.Dir(abs)))
	return filepath.Join(s.Dir, safe(teamDir)+"."+safe(name)+"."+hex.EncodeToString(sum[:6])+".key"), nil
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return r
		}
		return '-'
	}, s)
}

// Create makes a fresh key for the teammate whose inbox is inbox, stamped
// at now (call it just before the teammate's command line is built), and
// stores it, replacing any key of an earlier launch.
func (s Store) Create(inbox string, now time.Time) (*Key, error) {
	k, err := NewKey(now)
	if err != nil {
		return nil, err
	}
	p, err := s.path(inbox)
	if err != nil {
		return nil, err
	}
	if err := s.ensureDir(); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(inbox)
	b, err := json.Marshal(keyFile{Inbox: abs, Stamp: k.Stamp, Seed: base64.RawURLEncoding.EncodeToString(k.Private.Seed())})
	if err != nil {
		return nil, err
	}
	if err := writeFile(p, b); err != nil {
		return nil, fmt.Errorf("store the signing key: %w", err)
	}
	return k, nil
}

// Load returns the key of the teammate whose inbox is inbox, or nil when
// paneteam holds none (the teammate was started without one, by someone
// else, or has left).
func (s Store) Load(inbox string) (*Key, error) {
	p, err := s.path(inbox)
	if err != nil {
		return nil, err
	}
	// Not through a link: a key is the state folder's own file.
	f, err := safefs.OpenFile(p, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("signing key %s can be read by others (mode %v): remove it and start the teammate again", p, st.Mode().Perm())
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	var kf keyFile
	if err := json.Unmarshal(b, &kf); err != nil {
		return nil, fmt.Errorf("signing key %s does not parse (%v): remove it and start the teammate again", p, err)
	}
	seed, err := base64.RawURLEncoding.DecodeString(kf.Seed)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w: remove it and start the teammate again", p, err)
	}
	return KeyFromSeed(seed, kf.Stamp)
}

// Forget removes the key of the teammate whose inbox is inbox; call it
// when the teammate leaves the team. A missing key is not an error.
func (s Store) Forget(inbox string) error {
	p, err := s.path(inbox)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove signing key: %w", err)
	}
	return nil
}

// ensureDir makes the key folder 0700, and makes it 0700 again if it was
// loosened.
func (s Store) ensureDir() error {
	if s.Dir == "" {
		return errors.New("no folder for signing keys")
	}
	if err := os.MkdirAll(s.Dir, dirPerm); err != nil {
		return fmt.Errorf("create the signing key folder: %w", err)
	}
	st, err := os.Stat(s.Dir)
	if err != nil {
		return fmt.Errorf("signing key folder: %w", err)
	}
	if st.Mode().Perm() != dirPerm {
		if err := os.Chmod(s.Dir, dirPerm); err != nil {
			return fmt.Errorf("make the signing key folder private: %w", err)
		}
	}
	return nil
}

// writeFile replaces p with b atomically: a 0600 temp file beside it,
// synced, then renamed over it.
func writeFile(p string, b []byte) error {
	var nonce [6]byte
	rand.Read(nonce[:])
	tmp := p + ".tmp." + hex.EncodeToString(nonce[:])
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Lead signs as the team's lead with the keys in Store: the signer
// (mailbox.Signer) a command acting as the lead gives the inboxes it
// writes to.
type Lead struct {
	Store Store
}

// LeadSig signs e for the teammate whose inbox is inbox, or returns ""
// when paneteam holds no key for it.
func (l Lead) LeadSig(inbox string, e Entry) (string, error) {
	k, err := l.Store.Load(inbox)
	if err != nil || k == nil {
		return "", err
	}
	return k.Sign(e)
}
