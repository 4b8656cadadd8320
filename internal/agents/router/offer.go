package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/sys/configdir"
)

// OfferFile is the file in paneteam's config folder that says which
// agent CLIs 'paneteam claude' offers Claude's lead: {"offer": ["codex"]}.
func OfferFile(getenv func(string) string) string {
	dir := configdir.Dir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "claude.json")
}

// ReadOffer reads the offer file: nil when there is none (offer every
// installed CLI).
func ReadOffer(getenv func(string) string) ([]string, error) {
	path := OfferFile(getenv)
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var f struct {
		Offer *[]string `json:"offer"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w (it holds {\"offer\": [\"codex\", \"gemini\"]})", path, err)
	}
	if f.Offer == nil {
		return nil, nil
	}
	if len(*f.Offer) == 0 {
		return []string{"none"}, nil
	}
	return *f.Offer, nil
}

// Offer picks the profiles to offer: those named in want ("none" for
// none), else every profile whose program is installed (on path). A
// named profile that is not installed is left out and named in a note;
// an unknown name is an error that lists the known ones.
func Offer(all []*profile.Profile, want []string, path string) ([]*profile.Profile, []string, error) {
	var out []*profile.Profile
	var notes []string
	if slices.Equal(want, []string{"none"}) {
		return nil, nil, nil
	}
	names := make([]string, len(all))
	for i, p := range all {
		names[i] = p.Name
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			return nil, nil, fmt.Errorf("no agent CLI %q to offer: use %s, or none ('paneteam agents' lists them)", w, strings.Join(names, ", "))
		}
	}
	for _, p := range all {
		if len(want) > 0 && !slices.Contains(want, p.Name) {
			continue
		}
		if _, err := p.Locate(path); err != nil {
			if len(want) > 0 {
				how := ""
				if p.Install != "" {
					how = " (" + p.Install + ")"
				}
				notes = append(notes, fmt.Sprintf("%s is not installed, so Claude's lead is not offered it%s", p.Title, how))
			}
			continue
		}
		out = append(out, p)
	}
	return out, notes, nil
}
