package envlist

import (
	"slices"
	"testing"
)

func TestEdits(t *testing.T) {
	base := []string{"A=1", "PATH=/bin", "B=", "A=2", "C=x=y"}
	orig := slices.Clone(base)
	for _, c := range []struct {
		name string
		got  []string
		want []string
	}{
		{"Without one", Without(base, "A"), []string{"PATH=/bin", "B=", "C=x=y"}},
		{"Without several", Without(base, "PATH", "C"), []string{"A=1", "B=", "A=2"}},
		{"Without none there", Without(base, "Z"), base},
		{"Without nothing", Without(nil, "A"), nil},
		{"Filter", Filter(base, func(k string) bool { return k > "A" }), []string{"PATH=/bin", "B=", "C=x=y"}},
		{"Only", Only(base, "C", "A"), []string{"A=1", "A=2", "C=x=y"}},
		{"Set an existing key", Set(base, "A", "3"), []string{"PATH=/bin", "B=", "C=x=y", "A=3"}},
		{"Set a new key", Set(base, "D", ""), append(slices.Clone(base), "D=")},
		{"Default kept", Default(base, "B", "no"), base},
		{"Default added", Default(base, "D", "4"), append(slices.Clone(base), "D=4")},
		{"Edit in place, new last, dropped", Edit(base, map[string]string{"Z": "9", "A": "3", "Y": "8", "C": "no"}, "C", "B"),
			[]string{"A=3", "PATH=/bin", "Y=8", "Z=9"}},
		{"Edit nothing", Edit(base, nil), base},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if !slices.Equal(base, orig) {
		t.Errorf("the list given was changed: %q, was %q", base, orig)
	}
}

func TestReads(t *testing.T) {
	env := []string{"A=1", "B=", "A=2", "C=x=y", "junk"}
	for _, c := range []struct {
		key  string
		want string
		ok   bool
	}{
		{"A", "2", true}, // the last, as a program sees it
		{"B", "", true},
		{"C", "x=y", true},
		{"D", "", false},
		{"junk", "", true}, // an entry without '=' is a key with no value
		{"", "", false},
	} {
		if v, ok := Lookup(env, c.key); v != c.want || ok != c.ok {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", c.key, v, ok, c.want, c.ok)
		}
		if Has(env, c.key) != c.ok {
			t.Errorf("Has(%q) = %v, want %v", c.key, !c.ok, c.ok)
		}
	}
	m := Map(env)
	if len(m) != 3 || m["A"] != "2" || m["B"] != "" || m["C"] != "x=y" {
		t.Errorf("Map = %v, want A=2 B= C=x=y and no junk", m)
	}
	for kv, want := range map[string]bool{"A=1": true, "A=": true, "=1": false, "A": false, "": false, "A=b=c": true} {
		if Valid(kv) != want {
			t.Errorf("Valid(%q) = %v, want %v", kv, !want, want)
		}
	}
	if Key("A=b=c") != "A" || Key("A") != "A" {
		t.Errorf("Key: %q, %q", Key("A=b=c"), Key("A"))
	}
}
