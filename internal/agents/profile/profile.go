// Package profile describes, as data, how paneteam starts an agent CLI
// (Codex, Gemini CLI, OpenCode, or one a user adds) as a teammate: its
// command line as an argv template (never a shell string), how it takes
// the first prompt, how paneteam's MCP server and turn-end hook are
// registered for that one run, how --permission-mode and --model map to
// its flags, the files and environment of its run, and the releases it
// was tested with. paneteam ships one profile per CLI (profiles/*.json);
// a JSON file of the same shape in paneteam's config folder
// ($XDG_CONFIG_HOME/paneteam/agents, else ~/.config/paneteam/agents) adds
// a CLI or replaces a shipped profile of the same name.
package profile

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/configdir"
)

// Profile is one agent CLI's profile.
type Profile struct {
	// Name is how --agent names it (the file's name without .json).
	Name string `json:"name"`
	// Title is what 'paneteam agents' shows.
	Title string `json:"title"`
	// Description tells Claude Code's lead when to pick this CLI as a
	// teammate ('paneteam claude' offers it as an agent type).
	Description string `json:"description,omitempty"`
	// Program is the executable, looked up on PATH.
	Program string `json:"program"`
	// Install tells a person how to install it.
	Install string `json:"install,omitempty"`
	// VersionArgs print the version (the first x.y.z in the output).
	VersionArgs []string `json:"versionArgs,omitempty"`
	// VersionPackage is the npm package the program comes from: its
	// version is read from that package's package.json beside the
	// program (PackageVersion) before VersionArgs are run, which can
	// take seconds for a large Node CLI.
	VersionPackage string `json:"versionPackage,omitempty"`
	// Tested is the range of releases paneteam was tested with.
	Tested Range `json:"tested"`

	// Args come first after the program, on every run.
	Args []string `json:"args,omitempty"`
	// MCP registers paneteam's MCP server (as "team") for this run.
	MCP []string `json:"mcp,omitempty"`
	// Hook wires the CLI's turn-end hook to 'paneteam agent-hook NAME'.
	Hook []string `json:"hook,omitempty"`
	// Model passes --model; absent, the model is left to the CLI.
	Model []string `json:"model,omitempty"`
	// Models are the model names this CLI takes from Claude Code's lead
	// as they are; any other (a Claude model) leaves the CLI's default.
	Models []string `json:"models,omitempty"`
	// Effort passes Claude Code's --effort level ({{effort}}); absent,
	// the level is named in a warning and left out.
	Effort []string `json:"effort,omitempty"`
	// Deny maps a Claude Code deny rule ("Bash", "WebFetch", or a rule
	// with its pattern, "Bash(rm:*)", exactly) to the CLI's flags that
	// enforce it. A rule not listed cannot be enforced: a teammate the
	// lead starts with it is refused, never started without it.
	Deny map[string][]string `json:"deny,omitempty"`
	// Permission maps paneteam's --permission-mode (Claude Code's modes)
	// to the CLI's flags; a mode not listed is refused.
	Permission map[string][]string `json:"permission,omitempty"`
	// PermissionEnv adds variables for a mode of Permission (which must
	// list the mode too, if only with no flags): how a CLI that takes
	// its approvals from its environment is given one.
	PermissionEnv map[string]map[string]string `json:"permissionEnv,omitempty"`
	// Prompt passes the first prompt (for example ["{{prompt}}"] for a
	// positional argument, ["-i", "{{prompt}}"] for a flag). It comes
	// last, after "--" when PromptAfterDashes.
	Prompt            []string `json:"prompt,omitempty"`
	PromptAfterDashes bool     `json:"promptAfterDashes,omitempty"`
	// Resume continues one of the CLI's own sessions, {{session}}, whose
	// id its hook reported (HookInput.Session): it comes right after the
	// program, before Args, where a subcommand goes (Codex's "resume
	// ID"). The rest of the command line is as on a first run, the first
	// prompt then being paneteam's word that the teammate was started
	// again. Absent, a teammate started again ('paneteam resume') starts
	// a fresh session and is told so.
	Resume []string `json:"resume,omitempty"`
	// ResumeWithoutPrompt leaves Prompt out when continuing a session,
	// for a CLI that would not run it there (OpenCode's screen takes
	// --prompt only for a new session): the profile hands {{prompt}}
	// over another way, a plugin of its files.
	ResumeWithoutPrompt bool `json:"resumeWithoutPrompt,omitempty"`

	// Env is added to the CLI's environment.
	Env map[string]string `json:"env,omitempty"`
	// EnvJSON are variables whose value is a JSON object (the strings in
	// it filled in like the rest).
	EnvJSON map[string]json.RawMessage `json:"envJson,omitempty"`
	// Files are written into the run's own folder before the CLI starts.
	Files []File `json:"files,omitempty"`
	// Dirs are folders made in the run's own folder (a config home the CLI
	// insists exists).
	Dirs []string `json:"dirs,omitempty"`

	// Quit ends the CLI cleanly between turns: the text typed (its own
	// quit command), then SIGTERM, then SIGKILL.
	Quit string `json:"quit,omitempty"`
	// IdleHook is true when the hook reports the end of every turn, so
	// paneteam knows the CLI's idle exactly instead of from quiet output.
	IdleHook bool `json:"idleHook,omitempty"`
	// HookInput says how 'paneteam agent-hook NAME' reads the hook's
	// report of a turn's end.
	HookInput HookInput `json:"hookInput,omitempty"`
	// Asks says which of the hook's reports (read as HookInput says) mean
	// the CLI shows a permission dialog in its own pane: the member needs
	// the person until the hook's next report of anything else. Absent
	// for a CLI whose hooks do not tell.
	Asks *Asks `json:"asks,omitempty"`

	// Source is where the profile was read from ("shipped" or a file).
	Source string `json:"source,omitempty"`
}

// File is one file of a run's own folder.
type File struct {
	// Path is where it goes; it must be under {{home}}, the run's folder.
	Path string `json:"path"`
	// LinkTo makes Path a symbolic link to the first of these that exists
	// (a candidate naming an unset variable is skipped): how a run keeps
	// the person's login without paneteam writing their files.
	LinkTo []string `json:"linkTo,omitempty"`
	// CopyFrom copies the first of these that exists (for a config the
	// CLI might rewrite: the person's own is never written).
	CopyFrom []string `json:"copyFrom,omitempty"`
	// MergeFrom is a JSON file (the first that exists) the JSON below is
	// merged over, object by object.
	MergeFrom []string `json:"mergeFrom,omitempty"`
	// JSON is the file's content as JSON (strings in it filled in).
	JSON json.RawMessage `json:"json,omitempty"`
	// Text is the file's content as text (filled in).
	Text string `json:"text,omitempty"`
	// Append adds Text after a copied file's content.
	Append bool `json:"append,omitempty"`
}

// HookInput is how a CLI's turn-end hook hands over its report: a JSON
// object as the last argument or on stdin.
type HookInput struct {
	// From is "lastArg" or "stdin".
	From string `json:"from,omitempty"`
	// Reply is the key holding the turn's last reply.
	Reply string `json:"reply,omitempty"`
	// Match lists keys that must hold these values for the report to be a
	// turn's end of the teammate's own conversation.
	Match map[string]string `json:"match,omitempty"`
	// Skip lists keys whose presence (non-empty) marks a report to ignore.
	Skip []string `json:"skip,omitempty"`
	// Stdout is printed for the CLI to read back (some hooks must answer).
	Stdout string `json:"stdout,omitempty"`
	// Session is the key holding the id of the CLI's session (its own
	// name for the conversation), kept in the run's folder for Resume.
	Session string `json:"session,omitempty"`
}

// Asks is how a CLI's hook reports a permission dialog in its pane.
type Asks struct {
	// Match lists keys that must hold these values for the report to be
	// the dialog's.
	Match map[string]string `json:"match"`
	// About is the key holding the CLI's summary of what it asks.
	About string `json:"about,omitempty"`
}

// Range is a range of releases, both ends included; an empty end is open.
type Range struct {
	Min string `json:"min,omitempty"`
	Max string `json:"max,omitempty"`
}

func (r Range) String() string {
	switch {
	case r.Min == "" && r.Max == "":
		return "untested"
	case r.Min == r.Max:
		return r.Min
	case r.Max == "":
		return r.Min + " or later"
	case r.Min == "":
		return "up to " + r.Max
	}
	return r.Min + " to " + r.Max
}

// Contains reports whether version v is in the range; an unknown version
// is not.
func (r Range) Contains(v string) bool {
	if v == "" || (r.Min == "" && r.Max == "") {
		return false
	}
	return (r.Min == "" || Compare(r.Min, v) <= 0) && (r.Max == "" || Compare(v, r.Max) <= 0)
}

// Compare compares dotted release numbers numerically (1.10.0 > 1.9.2);
// anything after a '-' or '+' is ignored.
func Compare(a, b string) int {
	pa, pb := parts(a), parts(b)
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func parts(v string) []int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, p := range strings.Split(v, ".") {
		n, _ := strconv.Atoi(p)
		out = append(out, n)
	}
	return out
}

//go:embed profiles/*.json
var shipped embed.FS

// ConfigDir is the folder of a user's own profiles: agents/ in
// paneteam's config folder ($XDG_CONFIG_HOME/paneteam/agents, else
// ~/.config/paneteam/agents; "" without a home).
func ConfigDir(getenv func(string) string) string {
	dir := configdir.Dir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "agents")
}

// All returns every profile, shipped ones and the user's (which replace a
// shipped one of the same name), by name. A user profile that does not
// parse is an error naming the file.
func All(getenv func(string) string) ([]*Profile, error) {
	byName := map[string]*Profile{}
	entries, err := fs.ReadDir(shipped, "profiles")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := shipped.ReadFile("profiles/" + e.Name())
		if err != nil {
			return nil, err
		}
		p, err := Parse(b, strings.TrimSuffix(e.Name(), ".json"), "shipped")
		if err != nil {
			return nil, fmt.Errorf("shipped profile %s: %w", e.Name(), err)
		}
		byName[p.Name] = p
	}
	if dir := ConfigDir(getenv); dir != "" {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("read agent profile: %w", err)
			}
			p, err := Parse(b, strings.TrimSuffix(filepath.Base(f), ".json"), f)
			if err != nil {
				return nil, fmt.Errorf("agent profile %s: %w (fix it or move it out of %s)", f, err, dir)
			}
			byName[p.Name] = p
		}
	}
	out := make([]*Profile, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Find returns the profile called name.
func Find(name string, getenv func(string) string) (*Profile, error) {
	all, err := All(getenv)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range all {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("no agent profile %q: use one of %s, or add %s.json to %s ('paneteam agents' lists them)",
		name, strings.Join(names, ", "), name, ConfigDir(getenv))
}

// Parse reads a profile; name is its file's name, source where it came
// from. It checks what Build relies on.
func Parse(b []byte, name, source string) (*Profile, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		p.Name = name
	}
	if p.Name != name {
		return nil, fmt.Errorf("its name %q differs from its file name %s.json", p.Name, name)
	}
	p.Source = source
	if p.Program == "" || strings.ContainsAny(p.Program, " \t\n") && !filepath.IsAbs(p.Program) {
		return nil, errors.New(`"program" must name one executable (no arguments: put them in "args")`)
	}
	if p.Title == "" {
		p.Title = p.Name
	}
	for _, d := range p.Dirs {
		if !strings.HasPrefix(d, "{{home}}/") {
			return nil, fmt.Errorf("folder %q is outside the run's own folder: its path must start with {{home}}/", d)
		}
	}
	for _, f := range p.Files {
		if !strings.HasPrefix(f.Path, "{{home}}/") {
			return nil, fmt.Errorf("file %q is outside the run's own folder: its path must start with {{home}}/", f.Path)
		}
		if f.JSON != nil && f.Text != "" {
			return nil, fmt.Errorf("file %q has both json and text: give one", f.Path)
		}
	}
	for mode := range p.PermissionEnv {
		if _, ok := p.Permission[mode]; !ok {
			return nil, fmt.Errorf("permissionEnv names mode %q, which \"permission\" does not list: add it there (with [] for no flags)", mode)
		}
	}
	switch p.HookInput.From {
	case "", "lastArg", "stdin":
	default:
		return nil, fmt.Errorf(`hookInput.from %q: use "lastArg" or "stdin"`, p.HookInput.From)
	}
	if p.Asks != nil && len(p.Asks.Match) == 0 {
		return nil, errors.New("asks.match is empty: every report of the hook would mark the CLI as asking")
	}
	if len(p.Resume) > 0 && p.HookInput.Session == "" {
		return nil, errors.New(`"resume" needs hookInput.session, the key of the hook's report that holds the session's id: without it no session is known to continue`)
	}
	lists := [][]string{p.Args, p.MCP, p.Hook, p.Model, p.Effort, p.Prompt, p.Resume}
	for _, l := range p.Deny {
		lists = append(lists, l)
	}
	for _, list := range lists {
		if err := checkTemplates(list); err != nil {
			return nil, err
		}
	}
	return &p, nil
}
