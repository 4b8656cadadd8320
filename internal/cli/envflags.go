package cli

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	ucli "github.com/urfave/cli/v3"
)

// bindEnv makes flags' environment variables (declared as
// Sources: ucli.EnvVars(...)) read the environment captured at start
// (Env.Vars) instead of the live process environment urfave/cli reads, so
// a command sees one consistent environment and tests stay hermetic. Every
// flag keeps its variables in its help text; the values are applied in a
// Before hook of the app and of every (sub)command.
func bindEnv(env Env, app *ucli.Command) {
	app.Before = chainBefore(envBefore(env, app.Flags), app.Before)
	for _, c := range app.Commands {
		bindCommand(env, c)
	}
}

func bindCommand(env Env, c *ucli.Command) {
	c.Before = chainBefore(envBefore(env, c.Flags), c.Before)
	for _, s := range c.Commands {
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
		src := v.Elem().FieldByName("Sources")
		if !src.IsValid() {
			continue
		}
		chain, ok := src.Addr().Interface().(*ucli.ValueSourceChain)
		if !ok {
			continue
		}
		vars := chain.EnvKeys()
		if len(vars) == 0 {
			continue
		}
		src.Set(reflect.Zero(src.Type()))
		if u := v.Elem().FieldByName("Usage"); u.IsValid() && u.Kind() == reflect.String {
			u.SetString(fmt.Sprintf("%s [$%s]", u.String(), strings.Join(vars, ", $")))
		}
		// The Name field, not f.Names(), which allocates, and this runs
		// for every flag of the command at each start.
		bs = append(bs, binding{v.Elem().FieldByName("Name").String(), vars})
	}
	if len(bs) == 0 {
		return nil
	}
	return func(ctx context.Context, c *ucli.Command) (context.Context, error) {
		for _, b := range bs {
			if c.IsSet(b.name) {
				continue
			}
			for _, k := range b.vars {
				if val := env.Getenv(k); val != "" {
					if err := c.Set(b.name, val); err != nil {
						return ctx, usagef("$%s=%q is not a valid value for --%s: %v", k, val, b.name, err)
					}
					break
				}
			}
		}
		return ctx, nil
	}
}

func chainBefore(first, then ucli.BeforeFunc) ucli.BeforeFunc {
	if first == nil {
		return then
	}
	if then == nil {
		return first
	}
	return func(ctx context.Context, c *ucli.Command) (context.Context, error) {
		ctx, err := first(ctx, c)
		if err != nil {
			return ctx, err
		}
		return then(ctx, c)
	}
}
