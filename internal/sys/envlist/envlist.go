// Package envlist edits an environment as a process is given it: a list
// of KEY=VALUE entries (os.Environ, exec.Cmd.Env, a launch record's),
// never changing the list it is given. A key may stand in the list more
// than once; a program started with it sees the last (os/exec keeps the
// last of each key), and so does Lookup.
package envlist

import (
	"slices"
	"sort"
	"strings"
)

// Key is the key of the entry kv: what stands before its first '='.
func Key(kv string) string {
	k, _, _ := strings.Cut(kv, "=")
	return k
}

// Valid says kv is an entry a program can be given: KEY=VALUE, with a
// key that is not empty.
func Valid(kv string) bool {
	k, _, ok := strings.Cut(kv, "=")
	return ok && k != ""
}

// Lookup is the value of key in env, the last entry of it winning, and
// whether env has one (an empty value counts).
func Lookup(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(env[i], "="); k == key {
			return v, true
		}
	}
	return "", false
}

// Has says env has an entry of key.
func Has(env []string, key string) bool {
	_, ok := Lookup(env, key)
	return ok
}

// Without is env less every entry of the keys, in env's order.
func Without(env []string, keys ...string) []string {
	return Filter(env, func(k string) bool { return !slices.Contains(keys, k) })
}

// Only is env's entries of the keys alone, in env's order.
func Only(env []string, keys ...string) []string {
	return Filter(env, func(k string) bool { return slices.Contains(keys, k) })
}

// Set is env with every entry of key taken out and key=value last.
func Set(env []string, key, value string) []string {
	return append(Without(env, key), key+"="+value)
}

// Default is env with key=value added last when env has no entry of key,
// else env itself.
func Default(env []string, key, value string) []string {
	if Has(env, key) {
		return env
	}
	return append(env, key+"="+value)
}

// Edit is env with set's keys given their values where env has them (in
// env's order, one entry each), the rest of set last in the order of its
// keys, and drop's keys left out (a key in both is dropped).
func Edit(env []string, set map[string]string, drop ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	done := map[string]bool{}
	for _, kv := range env {
		k := Key(kv)
		v, ok := set[k]
		switch {
		case slices.Contains(drop, k) || done[k]:
			continue
		case ok:
			out = append(out, k+"="+v)
			done[k] = true
		default:
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !done[k] && !slices.Contains(drop, k) {
			out = append(out, k+"="+set[k])
		}
	}
	return out
}

// Map is env as a map of key to value, the last entry of a key winning;
// an entry without '=' is left out.
func Map(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// Filter is env's entries whose key keep accepts, in env's order; nil
// when none is (as exec.Cmd.Env, where nil is this process's own, it is
// the caller's to decide).
func Filter(env []string, keep func(key string) bool) []string {
	var out []string
	for _, kv := range env {
		if keep(Key(kv)) {
			out = append(out, kv)
		}
	}
	return out
}
