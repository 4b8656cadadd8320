package iterm2

import (
	"bytes"
	"encoding/json"
)

// iTerm2 Dynamic Profiles: JSON files in ~/Library/Application
// Support/iTerm2/DynamicProfiles holding {"Profiles": [...]}, each profile
// a dictionary of the same keys as iTerm2's preferences ("Name", "Guid",
// "Badge Text", "Tab Color", "Triggers", ...). 'paneteam iterm2 profile'
// prints one profile per team colour; with PANETEAM_ITERM2_PROFILES=1
// teammates' panes open with the profile of their colour.

// StatusVar is the user variable the triggers set: "waiting" when the
// teammate asks a question, "working" while it runs.
const StatusVar = "paneteam_status"

// ProfileName is the Dynamic Profile for teammates of a team colour.
func ProfileName(color string) string { return "paneteam " + color }

// DynamicProfile is one entry of a Dynamic Profiles file.
type DynamicProfile struct {
	Name        string    `json:"Name"`
	Guid        string    `json:"Guid"`
	Parent      string    `json:"Dynamic Profile Parent Name"`
	Tags        []string  `json:"Tags"`
	BadgeText   string    `json:"Badge Text"`
	UseTabColor bool      `json:"Use Tab Color"`
	TabColor    Color     `json:"Tab Color"`
	Triggers    []Trigger `json:"Triggers"`
}

// Color is a colour as iTerm2 stores it: components from 0 to 1.
type Color struct {
	Red   float64 `json:"Red Component"`
	Green float64 `json:"Green Component"`
	Blue  float64 `json:"Blue Component"`
	Alpha float64 `json:"Alpha Component"`
	Space string  `json:"Color Space"`
}

// Trigger is one profile trigger: when Regex matches a line of output,
// iTerm2 performs Action (a class name) with Parameter.
type Trigger struct {
	Regex     string `json:"regex"`
	Action    string `json:"action"`
	Parameter string `json:"parameter"`
	// Partial ("Instant") fires without waiting for the end of the line:
	// prompts wait for an answer on the same line.
	Partial bool `json:"partial"`
}

// Trigger actions paneteam uses. None of them runs a program or types
// text: a captured line must never reach a shell.
const (
	ActionSetUserVariable = "iTermSetUserVariableTrigger"
	ActionNotification    = "iTermUserNotificationTrigger"
)

// setVar is SetUserVariable's parameter: name, U+0001, value.
func setVar(name, value string) string { return name + "\x01" + value }

// teamRGB is each team colour as drawn on a tab (see team.Colors).
var teamRGB = []struct {
	name    string
	r, g, b float64
}{
	{"red", 0.86, 0.20, 0.18},
	{"blue", 0.15, 0.45, 0.85},
	{"green", 0.20, 0.65, 0.30},
	{"yellow", 0.90, 0.75, 0.10},
	{"purple", 0.55, 0.30, 0.75},
	{"orange", 0.95, 0.50, 0.10},
	{"pink", 0.95, 0.45, 0.70},
	{"cyan", 0.10, 0.70, 0.80},
}

// triggers mark what a teammate running Claude Code is doing, from lines
// Claude Code prints: its permission questions ("Do you want to
// proceed?") and its busy line ("esc to interrupt"). They only set a user
// variable shown in the badge and post a fixed notification; no
// parameter contains a capture (\0..\9).
func triggers() []Trigger {
	const asking = `Do you want to (proceed|make this edit|create|overwrite)`
	return []Trigger{
		{Regex: asking, Action: ActionSetUserVariable, Parameter: setVar(StatusVar, "waiting"), Partial: true},
		{Regex: asking, Action: ActionNotification, Parameter: "A paneteam teammate is waiting for your answer", Partial: true},
		{Regex: `esc to interrupt`, Action: ActionSetUserVariable, Parameter: setVar(StatusVar, "working"), Partial: true},
	}
}

// DynamicProfiles returns the teammate profiles, one per team colour.
func DynamicProfiles() []DynamicProfile {
	var out []DynamicProfile
	for _, c := range teamRGB {
		out = append(out, DynamicProfile{
			Name:   ProfileName(c.name),
			Guid:   "paneteam-teammate-" + c.name,
			Parent: "Default",
			Tags:   []string{"paneteam"},
			// The agent's name, set by the line that starts the teammate
			// (SetUserVar), then what the triggers saw.
			BadgeText:   `\(user.` + AgentVar + `)` + "\n" + `\(user.` + StatusVar + `)`,
			UseTabColor: true,
			TabColor:    Color{Red: c.r, Green: c.g, Blue: c.b, Alpha: 1, Space: "sRGB"},
			Triggers:    triggers(),
		})
	}
	return out
}

// ProfileJSON renders the Dynamic Profiles file exactly as
// 'paneteam iterm2 profile' prints it and examples/iterm2 holds it.
func ProfileJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Profiles []DynamicProfile `json:"Profiles"`
	}{DynamicProfiles()}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
