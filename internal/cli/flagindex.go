package cli

import (
	"time"

	ucli "github.com/urfave/cli/v3"
)

// flagValues is how paneteam reads a command's flags, and its parents'
// (--root, --lock-timeout): by name, as urfave/cli's c.String and its kin
// do, from an index built once per command (readFlags). urfave/cli's own
// lookups walk every flag of the command and its parents and build each
// flag's list of names as they go: a send reads two dozen flags, and
// reading them that way cost 0.25M instructions, 12% of the send
// (callgrind, bench/RESULTS.md), so commands read through this instead.
type flagValues map[string]ucli.Flag

// flagIndexKey is where a command keeps its index, in its Metadata.
const flagIndexKey = "paneteam.flags"

// readFlags is c's flags by name, a name taken by the nearest command first,
// as urfave/cli's lookup finds it. The index is built at the first read
// and kept on c: a flag's value is read from the flag itself at each call,
// so a value set later (an environment variable applied in a Before hook)
// is seen.
func readFlags(c *ucli.Command) flagValues {
	if v, ok := c.Metadata[flagIndexKey].(flagValues); ok {
		return v
	}
	v := flagValues{}
	add := func(fs []ucli.Flag) {
		for _, f := range fs {
			for _, n := range f.Names() {
				if _, ok := v[n]; !ok {
					v[n] = f
				}
			}
		}
	}
	for _, cmd := range c.Lineage() {
		add(cmd.Flags)
		for _, g := range cmd.MutuallyExclusiveFlags {
			for _, fs := range g.Flags {
				add(fs)
			}
		}
	}
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	c.Metadata[flagIndexKey] = v
	return v
}

func (v flagValues) get(name string) any {
	if f, ok := v[name]; ok {
		return f.Get()
	}
	return nil
}

func (v flagValues) String(name string) string {
	s, _ := v.get(name).(string)
	return s
}

func (v flagValues) Bool(name string) bool {
	b, _ := v.get(name).(bool)
	return b
}

func (v flagValues) Int(name string) int {
	i, _ := v.get(name).(int)
	return i
}

func (v flagValues) Float(name string) float64 {
	f, _ := v.get(name).(float64)
	return f
}

func (v flagValues) StringSlice(name string) []string {
	s, _ := v.get(name).([]string)
	return s
}

func (v flagValues) Duration(name string) time.Duration {
	d, _ := v.get(name).(time.Duration)
	return d
}

func (v flagValues) IsSet(name string) bool {
	f, ok := v[name]
	return ok && f.IsSet()
}
