package diagnose

// Extension is evidence of a kind that a package outside diagnose reads and
// judges: it travels in Input.Extensions to that package's rules (Register,
// Rule.Judge) and to its section of the report. Built-in kinds (gctrace,
// profiles, traces, source checks) have fields of their own instead; a new
// kind needs neither, as docs/architecture.md walks through.
type Extension interface {
	// Kind names the kind of evidence, e.g. "memstats".
	Kind() string
}

// Extension returns the input's evidence of a kind, nil when there is none.
func (in *Input) Extension(kind string) Extension {
	return findExtension(in.Extensions, kind)
}

// Extension returns the diagnosis's evidence of a kind, nil when there is
// none.
func (d *Diagnosis) Extension(kind string) Extension {
	return findExtension(d.Extensions, kind)
}

func findExtension(es []Extension, kind string) Extension {
	for _, e := range es {
		if e.Kind() == kind {
			return e
		}
	}
	return nil
}
