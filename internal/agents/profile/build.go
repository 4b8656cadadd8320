package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// Options are one teammate's run of a profile.
type Options struct {
	Team  string // team name
	Agent string // member name
	Root  string // team root (PANETEAM_ROOT)
	Cwd   string // the CLI's working folder (absolute)
	// Home is the run's own folder: config the CLI reads for this run
	// only (its MCP server, its hook), and links to the person's login.
	Home string
	// Paneteam is the paneteam executable the MCP server and the hook run.
	Paneteam string
	Prompt   string // the first prompt ("" for none)
	Model    string // "" leaves the CLI's default
	// PermissionMode is one of Claude Code's modes ("" is default).
	PermissionMode string
	// Effort is Claude Code's --effort level ("" for none).
	Effort string
	// Deny are Claude Code deny rules, each one the profile maps (Deny).
	Deny []string
	// LeadVerifyKey is the --lead-verify-key the teammate was given ("" for
	// none), which the profile hands its MCP server as
	// PANETEAM_LEAD_VERIFY_KEY={{leadKey}}: an empty value means no key,
	// and overrides one the CLI's own environment might hold.
	LeadVerifyKey string
	// Getenv is the environment the CLI starts from ({{env:NAME}}).
	Getenv func(string) string
	// Session is one of the CLI's own sessions to continue (the profile's
	// Resume); "" starts a new one.
	Session string
}

// RunPlan is what starting a teammate needs: the argv (the program first,
// as found on PATH or as the profile names it), the variables to add to
// its environment, and the files to write first (Write).
type RunPlan struct {
	Argv  []string
	Env   []string
	Dirs  []string
	Files []PlannedFile
	// Home is the run's folder. It lies in the team's folder, which
	// teammates write: nothing below it is reached through a link (Write).
	Home string
}

// PlannedFile is one file of the run's folder.
type PlannedFile struct {
	Path string
	// Link is set for a symbolic link to the person's file.
	Link string
	Data []byte
}

// Brief is the short introduction a teammate gets before its prompt: who it
// is, who leads, how to reach the team.
func Brief(agent, teamName, prompt string) string {
	b := fmt.Sprintf("You are %s, a teammate in the team %q, led by team-lead. "+
		"Work with the team through the \"team\" MCP tools: read_inbox for messages to you, "+
		"send_message to reply (to team-lead, a member, or \"*\"), list_tasks, claim_task and update_task for the task list. "+
		"What you print is not seen by the team: send your results with send_message.", agent, teamName)
	if strings.TrimSpace(prompt) == "" {
		return b + " Start by calling read_inbox."
	}
	return b + "\n\n" + prompt
}

// ResumeBrief is the prompt of a teammate whose earlier session goes on:
// it was away, and messages may wait.
func ResumeBrief(agent, teamName string) string {
	return fmt.Sprintf("paneteam started you again (you are %s, in the team %q): your team stopped for a while, its panes gone, "+
		"and this is your earlier conversation, continued. Messages sent to you meanwhile wait in your inbox: call read_inbox, "+
		"then go on with your tasks (list_tasks).", agent, teamName)
}

// ValidSession reports whether id has the shape of a CLI's session id
// paneteam passes on (a UUID, OpenCode's "ses_..."): letters, digits,
// '-' and '_', a letter or digit first, at most 128. It comes from a file
// in the team's folder, which teammates write, so nothing else, a flag
// least of all. (Checked by hand: a regular expression compiled at
// package initialisation costs every paneteam process.)
func ValidSession(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '-' || id[0] == '_' {
		return false
	}
	for _, c := range id {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Build fills the profile in for one run.
func Build(p *Profile, o Options) (RunPlan, error) {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Home == "" || !filepath.IsAbs(o.Home) {
		return RunPlan{}, errors.New("the run's folder must be an absolute path")
	}
	mode := o.PermissionMode
	if mode == "" {
		mode = "default"
	}
	perm, ok := p.Permission[mode]
	if !ok {
		var modes []string
		for m := range p.Permission {
			modes = append(modes, m)
		}
		sort.Strings(modes)
		return RunPlan{}, fmt.Errorf("--permission-mode %s has no equivalent for %s: use one of %s", mode, p.Title, strings.Join(modes, ", "))
	}
	prompt := Brief(o.Agent, o.Team, o.Prompt)
	if o.Session != "" {
		if len(p.Resume) == 0 {
			return RunPlan{}, fmt.Errorf("%s's profile cannot continue a session (it has no \"resume\"): start it without one", p.Title)
		}
		if !ValidSession(o.Session) {
			return RunPlan{}, fmt.Errorf("%q is not a session id paneteam passes on (letters, digits, '-' and '_')", o.Session)
		}
		prompt = ResumeBrief(o.Agent, o.Team)
	}
	vars := map[string]string{
		"team": o.Team, "agent": o.Agent, "root": o.Root, "cwd": o.Cwd, "home": o.Home,
		"paneteam": o.Paneteam, "model": o.Model, "prompt": prompt,
		"profile": p.Name, "effort": o.Effort, "leadKey": o.LeadVerifyKey, "session": o.Session,
	}
	f := filler{vars: vars, getenv: o.Getenv}
	l := RunPlan{Home: o.Home}
	l.Argv = []string{p.Program}
	if o.Session != "" {
		if err := f.appendAll(&l.Argv, p.Resume); err != nil {
			return RunPlan{}, err
		}
	}
	for _, part := range [][]string{p.Args, p.MCP, p.Hook, perm} {
		if err := f.appendAll(&l.Argv, part); err != nil {
			return RunPlan{}, err
		}
	}
	if o.Effort != "" {
		if len(p.Effort) == 0 {
			return RunPlan{}, fmt.Errorf("%s's profile has no effort flag: leave the effort out", p.Title)
		}
		if err := f.appendAll(&l.Argv, p.Effort); err != nil {
			return RunPlan{}, err
		}
	}
	for _, rule := range o.Deny {
		args, ok := p.Deny[rule]
		if !ok {
			return RunPlan{}, fmt.Errorf("%s cannot enforce the deny rule %q", p.Title, rule)
		}
		if err := f.appendAll(&l.Argv, args); err != nil {
			return RunPlan{}, err
		}
	}
	if o.Model != "" {
		if len(p.Model) == 0 {
			return RunPlan{}, fmt.Errorf("%s's profile has no model flag: leave --model out", p.Title)
		}
		if err := f.appendAll(&l.Argv, p.Model); err != nil {
			return RunPlan{}, err
		}
	}
	if len(p.Prompt) > 0 && (o.Session == "" || !p.ResumeWithoutPrompt) {
		if p.PromptAfterDashes {
			l.Argv = append(l.Argv, "--")
		}
		if err := f.appendAll(&l.Argv, p.Prompt); err != nil {
			return RunPlan{}, err
		}
	}
	l.Env = append(l.Env, "PANETEAM_TEAM="+o.Team, "PANETEAM_AGENT="+o.Agent)
	if o.Root != "" {
		l.Env = append(l.Env, "PANETEAM_ROOT="+o.Root)
	}
	for _, k := range sortedKeys(p.Env) {
		v, err := f.fill(p.Env[k])
		if err != nil {
			return RunPlan{}, fmt.Errorf("env %s: %w", k, err)
		}
		l.Env = append(l.Env, k+"="+v)
	}
	// A mode some CLIs take only from their environment (OpenCode's
	// OPENCODE_PERMISSION, merged over the person's own config).
	penv := p.PermissionEnv[mode]
	for _, k := range sortedKeys(penv) {
		v, err := f.fill(penv[k])
		if err != nil {
			return RunPlan{}, fmt.Errorf("permissionEnv %s %s: %w", mode, k, err)
		}
		l.Env = append(l.Env, k+"="+v)
	}
	for _, k := range sortedKeys(p.EnvJSON) {
		b, err := f.fillJSON(p.EnvJSON[k])
		if err != nil {
			return RunPlan{}, fmt.Errorf("envJson %s: %w", k, err)
		}
		l.Env = append(l.Env, k+"="+string(b))
	}
	for _, d := range p.Dirs {
		dir, err := f.fill(d)
		if err != nil {
			return RunPlan{}, fmt.Errorf("folder %s: %w", d, err)
		}
		l.Dirs = append(l.Dirs, dir)
	}
	for _, file := range p.Files {
		pf, ok, err := f.file(file)
		if err != nil {
			return RunPlan{}, fmt.Errorf("file %s: %w", file.Path, err)
		}
		if ok {
			l.Files = append(l.Files, pf)
		}
	}
	return l, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Write writes the run's files, creating folders as needed (private to
// the user). An existing file or link of the same path is replaced, never
// written through: a link planted in the run's folder, or in place of one
// of its folders, would have the file written wherever it leads. The
// links Write makes itself (to the person's logins) are made, not
// followed.
func (l RunPlan) Write() error {
	for _, d := range l.Dirs {
		if err := l.mkdir(d); err != nil {
			return fmt.Errorf("prepare %s: %w", d, err)
		}
	}
	for _, f := range l.Files {
		if err := l.mkdir(filepath.Dir(f.Path)); err != nil {
			return fmt.Errorf("prepare %s: %w", f.Path, err)
		}
		os.Remove(f.Path)
		if f.Link != "" {
			if err := os.Symlink(f.Link, f.Path); err != nil {
				return fmt.Errorf("link %s: %w", f.Path, err)
			}
			continue
		}
		// Created exclusively: a link planted since the remove is refused.
		if err := safefs.WriteFile(f.Path, f.Data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	return nil
}

// mkdir makes dir, none of whose folders below the run's folder may be a
// link. A folder elsewhere (a profile may name one) is made as it is.
func (l RunPlan) mkdir(dir string) error {
	rel, err := filepath.Rel(l.Home, dir)
	if l.Home == "" || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return os.MkdirAll(dir, 0o700)
	}
	if err := safefs.Dir(l.Home); err != nil {
		return err
	}
	return safefs.MkdirAll(l.Home, rel, 0o700)
}

// filler fills in {{...}} placeholders: {{name}} is a variable as is,
// {{toml:name}} a TOML string, {{json:name}} a JSON string, {{sh:name}} a
// POSIX shell word (for the few CLIs whose hooks are shell strings), and
// {{env:NAME}} a variable of the CLI's environment.
type filler struct {
	vars   map[string]string
	getenv func(string) string
	// unset is set when an {{env:NAME}} was empty (a path candidate with
	// it is skipped).
	unset bool
}

var errNoClose = errors.New("{{ without }}")

func (f *filler) fill(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return "", errNoClose
		}
		b.WriteString(s[:i])
		v, err := f.value(s[i+2 : i+j])
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		s = s[i+j+2:]
	}
}

func (f *filler) value(ref string) (string, error) {
	kind, name, ok := strings.Cut(ref, ":")
	if !ok {
		kind, name = "", ref
	}
	if kind == "env" {
		v := f.getenv(name)
		if v == "" {
			f.unset = true
		}
		return v, nil
	}
	v, ok := f.vars[name]
	if !ok {
		return "", fmt.Errorf("unknown placeholder {{%s}}: use one of %s, or {{env:NAME}}", ref, strings.Join(Placeholders, ", "))
	}
	switch kind {
	case "":
		return v, nil
	case "json":
		return string(jsonx.AppendString(nil, v)), nil
	case "toml":
		// A TOML basic string escapes as a JSON string does, for the
		// characters JSON escapes (\u00XX controls, \", \\); TOML also
		// forbids a raw DEL, which JSON leaves as it is, so a prompt
		// holding one would make the whole file unreadable to the CLI.
		return strings.ReplaceAll(string(jsonx.AppendString(nil, v)), "\x7f", `\u007f`), nil
	case "sh":
		return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'", nil
	}
	return "", fmt.Errorf("unknown placeholder {{%s}}: the forms are {{name}}, {{toml:name}}, {{json:name}}, {{sh:name}}, {{env:NAME}}", ref)
}

// Placeholders are the variables a profile may use.
var Placeholders = []string{"{{team}}", "{{agent}}", "{{root}}", "{{cwd}}", "{{home}}", "{{paneteam}}", "{{model}}", "{{prompt}}", "{{profile}}", "{{effort}}", "{{leadKey}}", "{{session}}"}

func (f *filler) appendAll(dst *[]string, list []string) error {
	for _, s := range list {
		v, err := f.fill(s)
		if err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
		*dst = append(*dst, v)
	}
	return nil
}

// fillJSON fills every string of a JSON value (keys included).
func (f *filler) fillJSON(raw json.RawMessage) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	v, err := f.fillAny(v)
	if err != nil {
		return nil, err
	}
	return jsonx.Marshal(v)
}

func (f *filler) fillAny(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return f.fill(x)
	case []any:
		for i := range x {
			y, err := f.fillAny(x[i])
			if err != nil {
				return nil, err
			}
			x[i] = y
		}
		return x, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			k2, err := f.fill(k)
			if err != nil {
				return nil, err
			}
			y, err := f.fillAny(val)
			if err != nil {
				return nil, err
			}
			out[k2] = y
		}
		return out, nil
	}
	return v, nil
}

// firstExisting is the first candidate path (filled in) that exists; a
// candidate with an unset variable is skipped.
func (f *filler) firstExisting(cands []string) (string, error) {
	for _, c := range cands {
		f.unset = false
		p, err := f.fill(c)
		if err != nil {
			return "", err
		}
		if f.unset || !filepath.IsAbs(p) {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", nil
}

func (f *filler) file(file File) (PlannedFile, bool, error) {
	path, err := f.fill(file.Path)
	if err != nil {
		return PlannedFile{}, false, err
	}
	if !strings.HasPrefix(filepath.Clean(path), filepath.Clean(f.vars["home"])+string(filepath.Separator)) {
		return PlannedFile{}, false, fmt.Errorf("%s is outside the run's folder %s", path, f.vars["home"])
	}
	pf := PlannedFile{Path: path}
	switch {
	case len(file.LinkTo) > 0:
		target, err := f.firstExisting(file.LinkTo)
		if err != nil || target == "" {
			return pf, false, err // nothing to link: the CLI asks for a login
		}
		pf.Link = target
		return pf, true, nil
	case len(file.CopyFrom) > 0:
		src, err := f.firstExisting(file.CopyFrom)
		if err != nil {
			return pf, false, err
		}
		if src != "" {
			if pf.Data, err = os.ReadFile(src); err != nil {
				return pf, false, fmt.Errorf("copy %s: %w", src, err)
			}
		}
		if file.Text != "" {
			text, err := f.fill(file.Text)
			if err != nil {
				return pf, false, err
			}
			if len(pf.Data) > 0 && !bytes.HasSuffix(pf.Data, []byte("\n")) {
				pf.Data = append(pf.Data, '\n')
			}
			pf.Data = append(pf.Data, text...)
		}
		return pf, src != "" || file.Text != "", nil
	case file.JSON != nil:
		own, err := f.fillJSON(file.JSON)
		if err != nil {
			return pf, false, err
		}
		base := map[string]any{}
		if len(file.MergeFrom) > 0 {
			src, err := f.firstExisting(file.MergeFrom)
			if err != nil {
				return pf, false, err
			}
			if src != "" {
				b, err := os.ReadFile(src)
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return pf, false, err
				}
				if len(bytes.TrimSpace(b)) > 0 {
					if err := json.Unmarshal(stripJSONComments(b), &base); err != nil {
						return pf, false, fmt.Errorf("%s does not parse (%v): fix it, or move it aside for this run", src, err)
					}
				}
			}
		}
		var over map[string]any
		if err := json.Unmarshal(own, &over); err != nil {
			return pf, false, err
		}
		merged := merge(base, over)
		pf.Data, err = json.MarshalIndent(merged, "", "  ")
		return pf, true, err
	default:
		text, err := f.fill(file.Text)
		pf.Data = []byte(text)
		return pf, true, err
	}
}

// merge lays over onto base: objects merge key by key, anything else
// replaces.
func merge(base, over map[string]any) map[string]any {
	for k, v := range over {
		if vo, ok := v.(map[string]any); ok {
			if bo, ok := base[k].(map[string]any); ok {
				base[k] = merge(bo, vo)
				continue
			}
		}
		base[k] = v
	}
	return base
}

// stripJSONComments removes // line comments outside strings (settings
// files of some CLIs allow them).
func stripJSONComments(b []byte) []byte {
	var out []byte
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			out = append(out, c)
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			if i < len(b) {
				out = append(out, '\n')
			}
		default:
			out = append(out, c)
		}
	}
	return out
}

// checkTemplates checks that every placeholder closes and is known.
func checkTemplates(list []string) error {
	f := filler{vars: map[string]string{}, getenv: func(string) string { return "" }}
	for _, p := range Placeholders {
		f.vars[strings.Trim(p, "{}")] = ""
	}
	for _, s := range list {
		if _, err := f.fill(s); err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
	}
	return nil
}

// Modes lists the permission modes the profile maps, sorted.
func (p *Profile) Modes() []string {
	var m []string
	for k := range p.Permission {
		m = append(m, k)
	}
	slices.Sort(m)
	return m
}
