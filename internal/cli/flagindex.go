package cli

import (
	"time"

	ucli "github.com/urfave/cli/v3"
)

// flagValues reads a command's flags, and its parents' (--root,
// --lock-timeout), by name as c.String and its kin do, from one pass over
// them. Each of urfave/cli's lookups walks every flag of the command and
// its parents, building each flag's list of names as it goes: send's two
// dozen reads cost 680 such lists, an eighth of a send's instructions.
type flagValues map[string]ucli.Flag

// readFlags indexes c's flags, then its parents', a name taken by the
// nearest command first, as urfave/cli's lookup finds it.
func readFlags(c *ucli.Command) flagValues {
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
