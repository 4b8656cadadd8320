package publicapi

import (
	"fmt"
	"go/types"
	"strings"
)

// InternalRefs returns one line for each place in pkg's exported API that
// names a type from an internal package, such as
// "mailbox.Signer.Sign: parameter e: internal type .../provenance.Entry".
// It follows the unexported types of pkg that the API hands out too (a
// function returning an unexported struct exposes its exported fields and
// methods), but not the insides of other packages' types: those are
// checked as their own package, or are not this module's.
func InternalRefs(pkg *types.Package) []string {
	w := &walker{pkg: pkg, seen: map[*types.TypeName]bool{}}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		where := pkg.Name() + "." + name
		switch obj := obj.(type) {
		case *types.TypeName:
			w.typeName(obj, where)
		default: // func, var, const
			w.typ(obj.Type(), where, map[types.Type]bool{})
		}
	}
	for len(w.queue) > 0 {
		tn := w.queue[0]
		w.queue = w.queue[1:]
		w.typeName(tn, pkg.Name()+"."+tn.Name())
	}
	return w.found
}

type walker struct {
	pkg   *types.Package
	seen  map[*types.TypeName]bool
	queue []*types.TypeName // unexported types of pkg the API leads to
	found []string
}

// typeName checks a type declared in pkg: what it is defined as (or
// aliases), its type parameters' constraints, and its exported methods.
func (w *walker) typeName(tn *types.TypeName, where string) {
	if w.seen[tn] {
		return
	}
	w.seen[tn] = true
	visiting := map[types.Type]bool{}
	if tn.IsAlias() {
		w.typ(types.Unalias(tn.Type()), where, visiting)
		return
	}
	named, ok := tn.Type().(*types.Named)
	if !ok {
		return
	}
	w.typeParams(named.TypeParams(), where, visiting)
	w.typ(named.Underlying(), where, visiting)
	for m := range named.Methods() {
		if m.Exported() {
			w.typ(m.Type(), where+"."+m.Name(), visiting)
		}
	}
}

func (w *walker) typeParams(list *types.TypeParamList, where string, visiting map[types.Type]bool) {
	for tp := range list.TypeParams() {
		w.typ(tp.Constraint(), where+" type parameter "+tp.Obj().Name(), visiting)
	}
}

// typ reports every internal named type that t spells out.
func (w *walker) typ(t types.Type, where string, visiting map[types.Type]bool) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	switch t := t.(type) {
	case *types.Alias:
		w.typ(types.Unalias(t), where, visiting)
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
			w.found = append(w.found, fmt.Sprintf("%s: internal type %s.%s", where, obj.Pkg().Path(), obj.Name()))
		}
		if obj.Pkg() == w.pkg && !obj.Exported() {
			w.queue = append(w.queue, obj)
		}
		for arg := range t.TypeArgs().Types() {
			w.typ(arg, where+" type argument", visiting)
		}
	case *types.Pointer:
		w.typ(t.Elem(), where, visiting)
	case *types.Slice:
		w.typ(t.Elem(), where, visiting)
	case *types.Array:
		w.typ(t.Elem(), where, visiting)
	case *types.Chan:
		w.typ(t.Elem(), where, visiting)
	case *types.Map:
		w.typ(t.Key(), where, visiting)
		w.typ(t.Elem(), where, visiting)
	case *types.Signature:
		w.typeParams(t.TypeParams(), where, visiting)
		w.tuple(t.Params(), where, "parameter", visiting)
		w.tuple(t.Results(), where, "result", visiting)
	case *types.Struct:
		for f := range t.Fields() {
			// An embedded field promotes its type's fields and methods
			// even when its own name is unexported.
			if f.Exported() || f.Embedded() {
				w.typ(f.Type(), where+"."+f.Name(), visiting)
			}
		}
	case *types.Interface:
		// Every method counts, exported or not: an unexported method of
		// an internal type in an interface is one nobody outside can
		// implement, and the check is about being usable from outside.
		for m := range t.ExplicitMethods() {
			w.typ(m.Type(), where+"."+m.Name(), visiting)
		}
		for e := range t.EmbeddedTypes() {
			w.typ(e, where+" embedded", visiting)
		}
	case *types.Union:
		for term := range t.Terms() {
			w.typ(term.Type(), where, visiting)
		}
	case *types.TypeParam:
		// Its constraint was checked where it was declared.
	case *types.Basic:
	}
}

func (w *walker) tuple(tup *types.Tuple, where, what string, visiting map[types.Type]bool) {
	for v := range tup.Variables() {
		label := what
		if name := v.Name(); name != "" && name != "_" {
			label += " " + name
		}
		w.typ(v.Type(), strings.TrimSpace(where+": "+label), visiting)
	}
}

// isInternal reports whether a package path is one the go command lets
// only its own module import.
func isInternal(path string) bool {
	return strings.HasPrefix(path, "internal/") || strings.Contains(path, "/internal/") ||
		strings.HasSuffix(path, "/internal") || path == "internal"
}
