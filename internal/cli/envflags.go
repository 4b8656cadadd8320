package cli

import (
	"context"
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

// flagFields returns pointers to a flag's Sources and Usage, and its Name.
// The flag types paneteam uses are read directly (flagFieldsDirect): this
// runs for every flag of the command at each start, and reflection's
// FieldByName cost a send 75 lookups. Any other type is read by
// reflection.
func flagFields(f ucli.Flag) (src *ucli.ValueSourceChain, usage *string, name string, ok bool) {
	if src, usage, name, ok := flagFieldsDirect(f); ok {
		return src, usage, name, true
	}
	return flagFieldsReflect(f)
}

func flagFieldsDirect(f ucli.Flag) (src *ucli.ValueSourceChain, usage *string, name string, ok bool) {
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

func flagFieldsReflect(f ucli.Flag) (src *ucli.ValueSourceChain, usage *string, name string, ok bool) {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, nil, "", false
	}
	s, u, n := v.Elem().FieldByName("Sources"), v.Elem().FieldByName("Usage"), v.Elem().FieldByName("Name")
	if !s.IsValid() || !u.IsValid() || u.Kind() != reflect.String || !n.IsValid() || n.Kind() != reflect.String {
		return nil, nil, "", false
	}
	src, ok = s.Addr().Interface().(*ucli.ValueSourceChain)
	if !ok {
		return nil, nil, "", false
	}
	return src, u.Addr().Interface().(*string), n.String(), true
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
