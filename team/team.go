package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// ErrNotFound means no team has that name under the root.
var ErrNotFound = errors.New("no such team")

// Team locates one team's files under a root. Claude Code names the config
// folder with one sanitiser and the inbox and task folders with another, so
// paths are derived from the team's stored name per kind of file.
type Team struct {
	Root string // holds teams/ and tasks/
	Name string // config.json's name
}

// Dir is teams/<name> holding config.json.
func (t Team) Dir() string { return filepath.Join(t.Root, "teams", SanitizeTeam(t.Name)) }

// ConfigPath is the team's config.json.
func (t Team) ConfigPath() string { return filepath.Join(t.Dir(), "config.json") }

// InboxDir holds one <agent>.json per member.
func (t Team) InboxDir() string {
	return filepath.Join(t.Root, "teams", SanitizePath(t.Name), "inboxes")
}

// InboxPath is the inbox file of the named agent.
func (t Team) InboxPath(agent string) string {
	return filepath.Join(t.InboxDir(), SanitizePath(agent)+".json")
}

// TasksDir holds the team's task files.
func (t Team) TasksDir() string { return filepath.Join(t.Root, "tasks", SanitizePath(t.Name)) }

// Open finds the team a user named: the input goes through Claude Code's
// team sanitiser, so "My Team" and "my-team" open the same team.
func Open(root, input string) (Team, *Config, error) {
	if err := CheckName("team", input); err != nil {
		return Team{}, nil, err
	}
	t := Team{Root: root, Name: SanitizeTeam(input)}
	cfg, err := Load(t.ConfigPath())
	if errors.Is(err, fs.ErrNotExist) {
		return Team{}, nil, notFound(root, input)
	}
	if err != nil {
		return Team{}, nil, err
	}
	if cfg.Name != "" {
		t.Name = cfg.Name
	}
	return t, cfg, nil
}

func notFound(root, input string) error {
	names, _ := List(root)
	return &NotFoundError{Name: input, Root: root, Teams: names}
}

// NotFoundError is a team that is not under its root; errors.Is
// matches ErrNotFound. Teams are those the root holds, to choose from.
type NotFoundError struct {
	Name  string // as asked
	Root  string
	Teams []string
}

func (e *NotFoundError) Error() string {
	hint := "no team under " + e.Root + "; create " + SanitizeTeam(e.Name) + " first"
	if len(e.Teams) > 0 {
		hint = "teams under " + e.Root + ": " + strings.Join(e.Teams, ", ")
	}
	return fmt.Sprintf("team %q: %v (%s)", e.Name, ErrNotFound, hint)
}

func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// List returns the names of the team folders under root that hold a config.
func List(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, "teams"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	var names []string
	for _, e := range entries {
		// <team>.deleted-<id> is a team being deleted (Claude Code
		// renames a team's folder before it removes it,
		// docs/PROTOCOL.md §3 "Deletion").
		if strings.Contains(e.Name(), ".deleted-") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, "teams", e.Name(), "config.json")); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// readRetries covers Claude Code's in-place write of config.json (open,
// write, truncate: docs/PROTOCOL.md §3): a reader may catch the file half
// written, or whole but followed by the tail of the longer text it
// replaces. A parse failure is retried briefly; if it persists, the file
// is read once more holding the lock, which every writer holds through
// its write, so a file that still does not parse is really broken. The
// writer can be kept from its truncate for longer than the retries last
// on a busy machine: only the locked read tells.
const (
	readRetries     = 5
	readPause       = 20 * time.Millisecond
	lockedReadLimit = 3 * time.Second
)

// Load reads and parses a config.json.
func Load(path string) (*Config, error) {
	var lastErr error
	for i := 0; i < readRetries; i++ {
		b, err := safefs.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read team config: %w", err)
		}
		cfg, err := parseConfig(path, b)
		if err == nil {
			return homed(path, cfg)
		}
		lastErr = err
		time.Sleep(readPause)
	}
	if cfg, ok, err := loadLocked(path); ok {
		if err == nil {
			return homed(path, cfg)
		}
		lastErr = err
	}
	return nil, fmt.Errorf("team config %s does not parse: %w (fix or restore the file; paneteam will not overwrite it)", path, lastErr)
}

// homed returns cfg, or nil and checkHome's error.
func homed(path string, cfg *Config) (*Config, error) {
	if err := checkHome(path, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// ErrMisplaced: a config.json names a team whose folder is another.
var ErrMisplaced = errors.New("config.json names a team that does not live in its folder")

// checkHome refuses a config.json under teams/ whose name does not
// sanitise to its own folder's name. Every path and id paneteam derives
// (inboxes, tasks, agent ids, the panes it may close) comes from that
// name, and any member, a host's teammate included, can rewrite the
// file: a name pointing at another team must not steer paneteam there.
func checkHome(path string, cfg *Config) error {
	dir := filepath.Dir(path)
	if cfg.Name == "" || filepath.Base(filepath.Dir(dir)) != "teams" {
		return nil
	}
	if folder := filepath.Base(dir); SanitizeTeam(cfg.Name) != folder {
		return fmt.Errorf("team config %s: %w: its name %q belongs in teams/%s (something other than Claude Code or paneteam changed it; set \"name\" back to this team's, %q, and paneteam will use it again)",
			path, ErrMisplaced, cfg.Name, SanitizeTeam(cfg.Name), folder)
	}
	return nil
}

// loadLocked reads and parses path holding its lock; ok is false when the
// lock could not be had in time (the caller keeps what it saw unlocked).
func loadLocked(path string) (cfg *Config, ok bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), lockedReadLimit)
	defer cancel()
	unlock, lerr := lockfile.Lock(ctx, path, lockfile.Options{Timeout: lockedReadLimit})
	if lerr != nil {
		return nil, false, nil
	}
	defer unlock()
	b, err := safefs.ReadFile(path)
	if err != nil {
		return nil, true, fmt.Errorf("read team config: %w", err)
	}
	cfg, err = parseConfig(path, b)
	return cfg, true, err
}

func parseConfig(path string, b []byte) (*Config, error) {
	var cfg Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		// encoding/json refuses a file nested deeper than 10,000 levels
		// before Config's own decoder sees it; that decoder reads such a
		// file when only a member row is that deep (rows.go), and gives
		// the same error for anything else.
		cfg = Config{}
		if cfg.UnmarshalJSON(b) != nil {
			return nil, err
		}
	}
	cfg.path = path
	return &cfg, nil
}

// Update applies fn to the team's config under the lock and writes it back
// atomically. fn may return ErrNoChange to write nothing.
func (t Team) Update(ctx context.Context, opts lockfile.Options, fn func(*Config) error) (*Config, error) {
	var out *Config
	err := lockfile.Transform(ctx, t.ConfigPath(), opts, func(old []byte) ([]byte, error) {
		cfg, err := parseConfig(t.ConfigPath(), old)
		if err != nil {
			return nil, fmt.Errorf("team config %s does not parse: %w (fix or restore the file; paneteam will not overwrite it)", t.ConfigPath(), err)
		}
		if err := checkHome(t.ConfigPath(), cfg); err != nil {
			return nil, err
		}
		if err := fn(cfg); err != nil {
			if errors.Is(err, ErrNoChange) {
				out = cfg
				return nil, nil
			}
			return nil, err
		}
		out = cfg
		return cfg.Encode()
	})
	if err != nil {
		return nil, fmt.Errorf("update team %s: %w", t.Name, err)
	}
	return out, nil
}

// ErrNoChange, returned by an Update function, writes nothing.
var ErrNoChange = errors.New("no change")

// CreateOptions describes a new team.
type CreateOptions struct {
	Description string
	Cwd         string // the lead's working directory
	LeaderPID   int
	LeaderStart string
	Now         time.Time
}

// Create makes a team with a name derived from input, safe for both of
// Claude Code's sanitisers ([a-z0-9-]). A name in use gets -2, -3, ...; the
// folder is claimed with mkdir, so concurrent creators never share one.
func Create(root, input string, o CreateOptions) (Team, *Config, error) {
	if err := CheckName("team", input); err != nil {
		return Team{}, nil, err
	}
	base := SanitizeTeam(strings.TrimSpace(input))
	if err := os.MkdirAll(filepath.Join(root, "teams"), lockfile.DirPerm); err != nil {
		return Team{}, nil, fmt.Errorf("create team: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(root, "tasks"), lockfile.DirPerm); err != nil {
		return Team{}, nil, fmt.Errorf("create team: %w", err)
	}
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = base + "-" + strconv.Itoa(n)
		}
		t := Team{Root: root, Name: name}
		if _, err := os.Stat(t.TasksDir()); err == nil {
			continue // a task list left by an older team of that name
		}
		err := os.Mkdir(t.Dir(), lockfile.DirPerm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return Team{}, nil, fmt.Errorf("create team %s: %w", name, err)
		}
		cfg, err := initTeam(t, o)
		if err != nil {
			os.RemoveAll(t.Dir())
			return Team{}, nil, err
		}
		return t, cfg, nil
	}
}

func initTeam(t Team, o CreateOptions) (*Config, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	ms := o.Now.UnixMilli()
	lead := AgentID(LeadName, t.Name)
	cfg := &Config{
		Name:        t.Name,
		Description: o.Description,
		CreatedAt:   ms,
		LeadAgentID: lead,
		Members: []Member{{
			AgentID:    lead,
			Name:       LeadName,
			AgentType:  LeadName,
			JoinedAt:   ms,
			TmuxPaneID: "",
			Cwd:        o.Cwd,
		}},
	}
	if o.LeaderPID > 0 {
		cfg.Paneteam = &TeamMeta{LeaderPID: o.LeaderPID, LeaderStart: o.LeaderStart}
	}
	for _, d := range []string{t.InboxDir(), t.TasksDir()} {
		if err := os.MkdirAll(d, lockfile.DirPerm); err != nil {
			return nil, fmt.Errorf("create team %s: %w", t.Name, err)
		}
	}
	b, err := cfg.Encode()
	if err != nil {
		return nil, err
	}
	if err := lockfile.WriteAtomic(t.ConfigPath(), b); err != nil {
		return nil, fmt.Errorf("create team %s: %w", t.Name, err)
	}
	return cfg, nil
}

// Delete removes the team and task folders. Callers decide whether it is
// safe (see the lifecycle commands); this only refuses paths outside root.
func (t Team) Delete() error {
	for _, d := range []string{t.Dir(), filepath.Dir(t.InboxDir()), t.TasksDir()} {
		if !within(t.Root, d) {
			return fmt.Errorf("refusing to delete %s: not under %s", d, t.Root)
		}
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("delete team %s: %w", t.Name, err)
		}
	}
	return nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
