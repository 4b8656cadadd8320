package cli

import (
	"fmt"
	"reflect"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// bindEnv makes flags' EnvVars read the environment captured at start
// (Env.Vars) instead of the live process environment urfave/cli reads, so a
// command sees one consistent environment and tests stay hermetic. Every
// flag keeps its EnvVars in its help text; the values are applied in a
// Before hook of the app and of every (sub)command.
func bindEnv(env Env, app *ucli.App) {
	app.Before = chainBefore(envBefore(env, app.Flags), app.Before)
	for _, c := range app.Commands {
		bindCommand(env, c)
	}
}

func bindCommand(env Env, c *ucli.Command) {
	c.Before = chainBefore(envBefore(env, c.Flags), c.Before)
	// A bad flag on any command is a usage error (exit 2), like the app's.
	if c.OnUsageError == nil {
		c.OnUsageError = func(_ *ucli.Context, err error, _ bool) error { return usageError{err} }
	}
	for _, s := range c.Subcommands {
		bindCommand(env, s)
	}
}

func envBefore(env Env, flags []ucli.Flag) ucli.BeforeFunc {
	type binding struct {
		name string
		vars []string
	}
	var bs []binding
	for _, f := range flags {
		v := reflect.ValueOf(f)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			continue
		}
		ev := v.Elem().FieldByName("EnvVars")
		if !ev.IsValid() || ev.Len() == 0 {
			continue
		}
		vars := ev.Interface().([]string)
		ev.Set(reflect.Zero(ev.Type()))
		if u := v.Elem().FieldByName("Usage"); u.IsValid() && u.Kind() == reflect.String {
			u.SetString(fmt.Sprintf("%s [$%s]", u.String(), strings.Join(vars, ", $")))
		}
		// The Name field, not f.Names(): that runs a regular expression,
		// and this runs for every flag of every command at each start.
		bs = append(bs, binding{v.Elem().FieldByName("Name").String(), vars})
	}
	return func(c *ucli.Context) error {
		for _, b := range bs {
			if c.IsSet(b.name) {
				continue
			}
			for _, k := range b.vars {
				if val := env.Getenv(k); val != "" {
					if err := c.Set(b.name, val); err != nil {
						return usagef("$%s=%q is not a valid value for --%s: %v", k, val, b.name, err)
					}
					break
				}
			}
		}
		return nil
	}
}

func chainBefore(first, then ucli.BeforeFunc) ucli.BeforeFunc {
	if then == nil {
		return first
	}
	return func(c *ucli.Context) error {
		if err := first(c); err != nil {
			return err
		}
		return then(c)
	}
}
