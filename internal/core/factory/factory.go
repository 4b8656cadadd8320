// Package factory is what the commands of one run share, built once and
// only when a command asks for it: paneteam's state folder, the team
// root, the lead's key store and signer, a teammate's verifier, and the
// teams opened so far. A front end makes one Factory per run (the
// command line one per process, in Main) and hands it to every command
// function, which a test can then call with options and a Factory of
// its own, without going through the command line.
//
// It is the one place a front end learns where paneteam keeps its state:
// no command works out the state folder or the root for itself.
package factory

import (
	"path/filepath"
	"sync"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// EnvLeadVerifyKey is the variable a teammate's lead key comes in
// (provenance.EnvLeadVerifyKey), for a front end that names it.
const EnvLeadVerifyKey = provenance.EnvLeadVerifyKey

// Keys is the store of the lead's signing keys, one per keyed teammate.
type Keys = provenance.Store

// Factory builds what a run's commands share from the environment the run
// started with. Its methods are safe for concurrent use; each value is
// worked out at most once.
type Factory struct {
	getenv func(string) string

	state func() (string, error)
	keys  func() (Keys, error)

	mu    sync.Mutex
	roots map[string]rootResult
	teams map[string]*opened
}

type rootResult struct {
	dir string
	err error
}

type opened struct {
	once sync.Once
	t    team.Team
	cfg  *team.Config
	err  error
}

// New is a Factory over getenv, the run's environment as captured at its
// start.
func New(getenv func(string) string) *Factory {
	f := &Factory{getenv: getenv, roots: map[string]rootResult{}, teams: map[string]*opened{}}
	f.state = sync.OnceValues(func() (string, error) { return provenance.StateDir(getenv) })
	f.keys = sync.OnceValues(func() (Keys, error) {
		d, err := f.StateDir()
		if err != nil {
			return Keys{}, err
		}
		return Keys{Dir: filepath.Join(d, "keys")}, nil
	})
	return f
}

// Getenv is the run's environment.
func (f *Factory) Getenv(k string) string { return f.getenv(k) }

// StateDir is paneteam's own state folder ($PANETEAM_STATE_DIR, else
// $XDG_STATE_HOME/paneteam, else ~/.local/state/paneteam).
func (f *Factory) StateDir() (string, error) { return f.state() }

// Root is the folder teams live under: explicit when given (a --root
// flag, a tool argument), else $CLAUDE_CONFIG_DIR, else ~/.claude.
func (f *Factory) Root(explicit string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.roots[explicit]; ok {
		return r.dir, r.err
	}
	dir, err := team.Root(explicit, f.getenv)
	f.roots[explicit] = rootResult{dir, err}
	return dir, err
}

// Keys is the lead's key store, "keys" in the state folder.
func (f *Factory) Keys() (Keys, error) { return f.keys() }

// Signer signs as the lead with the keys in the store; nil when the state
// folder cannot be found (nothing is then signed, and a keyed teammate
// refuses what it is sent, which post's signability check says first).
func (f *Factory) Signer() mailbox.Signer {
	keys, err := f.Keys()
	if err != nil {
		return nil
	}
	return provenance.Lead{Store: keys}
}

// CheckVerifyKey reports whether key is a lead verify key a teammate can
// check its lead's signatures with.
func CheckVerifyKey(key string) error {
	_, err := provenance.NewVerifier(key)
	return err
}

// Team is the team name under root, opened the first time it is asked
// for in this run and the same value after: a command that reads a team
// in several steps reads its config.json once. A command that must see
// what it has just written reads the team again with team.Open.
func (f *Factory) Team(root, name string) (team.Team, *team.Config, error) {
	key := filepath.Join(root, "teams", team.SanitizeTeam(name))
	f.mu.Lock()
	o, ok := f.teams[key]
	if !ok {
		o = &opened{}
		f.teams[key] = o
	}
	f.mu.Unlock()
	o.once.Do(func() { o.t, o.cfg, o.err = team.Open(root, name) })
	return o.t, o.cfg, o.err
}
