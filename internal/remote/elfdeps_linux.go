//go:build linux

package remote

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// elfDeps reads of the ELF file at path what the dynamic loader reads:
// its interpreter (PT_INTERP, "" when it has none) and the libraries its
// DT_NEEDED entries name, in order, through the program headers as the
// loader does. debug/elf would read them too, but linking it builds the
// tables of debug/dwarf and compress/flate at every paneteam start
// (about 30K instructions of a --version's 0.8M), for a confined
// sftp-server that few runs start.
func elfDeps(path string) (interp string, needed []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	var ident [64]byte
	if _, err := io.ReadFull(f, ident[:]); err != nil || !bytes.HasPrefix(ident[:], []byte("\x7fELF")) {
		return "", nil, errors.New("not an ELF file")
	}
	var bo binary.ByteOrder
	switch ident[5] {
	case 1:
		bo = binary.LittleEndian
	case 2:
		bo = binary.BigEndian
	default:
		return "", nil, errors.New("ELF file of unknown byte order")
	}
	is64 := ident[4] == 2
	if !is64 && ident[4] != 1 {
		return "", nil, errors.New("ELF file of unknown class")
	}
	word := func(b []byte) uint64 { // a 4- or 8-byte field, by class
		if is64 {
			return bo.Uint64(b)
		}
		return uint64(bo.Uint32(b))
	}
	var phoff uint64
	var phentsize, phnum int
	if is64 {
		phoff, phentsize, phnum = bo.Uint64(ident[32:]), int(bo.Uint16(ident[54:])), int(bo.Uint16(ident[56:]))
	} else {
		phoff, phentsize, phnum = uint64(bo.Uint32(ident[28:])), int(bo.Uint16(ident[42:])), int(bo.Uint16(ident[44:]))
	}
	if (is64 && phentsize < 56) || (!is64 && phentsize < 32) {
		return "", nil, errors.New("ELF program headers of a bad size")
	}
	ph := make([]byte, phentsize*phnum)
	if _, err := f.ReadAt(ph, int64(phoff)); err != nil {
		return "", nil, fmt.Errorf("read the program headers: %w", err)
	}
	type seg struct{ typ, off, vaddr, filesz uint64 }
	segs := make([]seg, phnum)
	for i := range segs {
		p := ph[i*phentsize:]
		if is64 {
			segs[i] = seg{uint64(bo.Uint32(p)), bo.Uint64(p[8:]), bo.Uint64(p[16:]), bo.Uint64(p[32:])}
		} else {
			segs[i] = seg{uint64(bo.Uint32(p)), uint64(bo.Uint32(p[4:])), uint64(bo.Uint32(p[8:])), uint64(bo.Uint32(p[16:]))}
		}
	}
	read := func(off, n uint64) ([]byte, error) {
		if n > 1<<24 {
			return nil, errors.New("ELF segment too large")
		}
		b := make([]byte, n)
		_, err := f.ReadAt(b, int64(off))
		return b, err
	}
	const ptLoad, ptDynamic, ptInterp = 1, 2, 3
	const dtNull, dtNeeded, dtStrtab, dtStrsz = 0, 1, 5, 10
	var dyn []byte
	for _, s := range segs {
		switch s.typ {
		case ptInterp:
			b, err := read(s.off, s.filesz)
			if err != nil {
				return "", nil, fmt.Errorf("read the interpreter: %w", err)
			}
			v, _, _ := bytes.Cut(b, []byte{0})
			interp = string(v)
		case ptDynamic:
			if dyn, err = read(s.off, s.filesz); err != nil {
				return "", nil, fmt.Errorf("read the dynamic section: %w", err)
			}
		}
	}
	ent := 8
	if is64 {
		ent = 16
	}
	var strtab, strsz uint64
	var names []uint64
	for i := 0; i+ent <= len(dyn); i += ent {
		tag, val := word(dyn[i:]), word(dyn[i+ent/2:])
		if tag == dtNull {
			break
		}
		switch tag {
		case dtNeeded:
			names = append(names, val)
		case dtStrtab:
			strtab = val
		case dtStrsz:
			strsz = val
		}
	}
	if len(names) == 0 {
		return interp, nil, nil
	}
	// DT_STRTAB is an address: the loadable segment holding it gives
	// its place in the file.
	var strs []byte
	for _, s := range segs {
		if s.typ == ptLoad && s.vaddr <= strtab && strtab-s.vaddr < s.filesz {
			if strs, err = read(s.off+strtab-s.vaddr, min(strsz, s.filesz-(strtab-s.vaddr))); err != nil {
				return "", nil, fmt.Errorf("read the dynamic strings: %w", err)
			}
			break
		}
	}
	for _, n := range names {
		if n >= uint64(len(strs)) {
			return "", nil, errors.New("a DT_NEEDED entry outside the dynamic strings")
		}
		name, _, _ := bytes.Cut(strs[n:], []byte{0})
		needed = append(needed, string(name))
	}
	return interp, needed, nil
}
