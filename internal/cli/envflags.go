package cli

import (
	"context"
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
		src, usage, name, ok := flagFields(f)
		if !ok {
			continue
		}
		vars := src.EnvKeys()
		if len(vars) == 0 {
			continue
		}
		*src = ucli.ValueSourceChain{}
		*usage = *usage + " [$" + strings.Join(vars, ", $") + "]"
		bs = append(bs, binding{name, vars})
	}
	if len(bs) == 0 {
		return nil
	}
	return func(ctx context.Context, c *ucli.Command) (context.Context, error) {
		for _, b := range bs {
			if readFlags(c).IsSet(b.name) {
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

// flagFields returns pointers to a flag's Sources and Usage, and its Name,
// for the flag types paneteam declares. Another type keeps urfave/cli's own
// reading of the live environment; TestEveryEnvFlagIsBound fails when a
// command declares one with environment variables, so the type is added
// here.
func flagFields(f ucli.Flag) (src *ucli.ValueSourceChain, usage *string, name string, ok bool) {
	switch f := f.(type) {
	case *ucli.StringFlag:
		return &f.Sources, &f.Usage, f.Name, true
	case *ucli.BoolFlag:
		return &f.Sources, &f.Usage, f.Name, true
	case *ucli.DurationFlag:
		return &f.Sources, &f.Usage, f.Name, true
	case *ucli.IntFlag:
		return &f.Sources, &f.Usage, f.Name, true
	case *ucli.StringSliceFlag:
		return &f.Sources, &f.Usage, f.Name, true
	case *ucli.FloatFlag:
		return &f.Sources, &f.Usage, f.Name, true
	case *ucli.FloatSliceFlag:
		return &f.Sources, &f.Usage, f.Name, true
	}
	return nil, nil, "", false
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
