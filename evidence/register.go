package evidence

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/gcdoctor/gcdoctor/diagnose"
)

// Reader reads a kind of evidence that a package outside evidence adds: a
// file the user names, or a bundle's file. What it reads joins the
// diagnosis input as a diagnose.Extension, which that package's rules
// (diagnose.Register) and report section (report.RegisterSection) take up.
type Reader struct {
	// Name is what the evidence is called in messages ("MemStats dump");
	// Command the gcdoctor command that reads such a file on its own.
	Name, Command string
	// Files are the bundle files that hold this kind, the preferred
	// first.
	Files []string
	// Missing, when set, is the note for a bundle without the evidence:
	// what it lacks and how to collect it.
	Missing string
	// Sniff reports whether the first bytes of a file (at most 512) are
	// of this kind.
	Sniff func(head []byte) bool
	// Read reads one input. A partial result comes with an error that
	// says where reading stopped.
	Read func(ctx context.Context, r io.Reader, name string) (diagnose.Extension, error)
}

var registerMu sync.Mutex

// Register adds a kind of evidence and returns its Kind, for
// Options.Want. Kinds are sniffed in the order they were registered,
// after the built-in ones and before gctrace, the fallback for text. It
// panics, as a broken invariant, on a Reader without Name, Sniff or Read.
// It is meant to be called from an init function.
func Register(rd Reader) Kind {
	if rd.Name == "" || rd.Sniff == nil || rd.Read == nil {
		panic(fmt.Sprintf("evidence: reader %q lacks a name, Sniff or Read", rd.Name))
	}
	registerMu.Lock()
	defer registerMu.Unlock()
	var used Kind
	for _, r := range readers {
		used |= r.kind
	}
	k := Kind(1)
	for used&k != 0 {
		k <<= 1
	}
	if k == 0 {
		panic("evidence: too many kinds of evidence")
	}
	r := &reader{kind: k, name: rd.Name, command: rd.Command, files: rd.Files, missing: rd.Missing, sniff: rd.Sniff,
		read: func(l *loader, in io.Reader, name string, size int64) error {
			ext, err := rd.Read(l.ctx, in, name)
			if ext != nil {
				l.in.Extensions = append(l.in.Extensions, ext)
			}
			if ext != nil && err != nil {
				return &partialError{err}
			}
			return err
		}}
	// Before the fallback, which reads whatever nothing else claims.
	readers = slices.Insert(readers, len(readers)-1, r)
	return k
}
