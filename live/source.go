package live

// Source is one endpoint a service may serve its GC figures on.
type Source string

// The sources a Sampler reads, in the order it reads them and the order
// Between prefers them when two give the same figure.
const (
	// Agent is gcdoctor's agent: runtime/metrics as JSON.
	Agent Source = "agent"
	// MemStats is net/http/pprof's heap profile in text, whose end holds
	// runtime.MemStats.
	MemStats Source = "memstats"
	// Metrics is the Prometheus text exposition format.
	Metrics Source = "metrics"
	// Expvar is expvar's JSON, whose "memstats" are runtime.MemStats.
	Expvar Source = "expvar"
)

// Sources lists every source.
var Sources = []Source{Agent, MemStats, Metrics, Expvar}

// Path is where the source is served, relative to the service's base URL.
func (s Source) Path() string {
	switch s {
	case Agent:
		return "debug/gcdoctor/metrics"
	case MemStats:
		return "debug/pprof/heap?debug=1"
	case Metrics:
		return "metrics"
	case Expvar:
		return "debug/vars"
	}
	return ""
}

// Stages of a window whose samples are stored: the samples at its start
// and end, and those taken during it for the pauses.
const (
	Start  = "start"
	During = "during"
	End    = "end"
)

// File is the name of the file that holds what the source served at a
// stage of the window ("memstats-start.txt"): bundles store samples under
// these names.
func (s Source) File(stage string) string {
	ext := ".txt"
	if s == Agent || s == Expvar {
		ext = ".json"
	}
	return string(s) + "-" + stage + ext
}

// HasPauses reports whether the source serves the ring of the last 256
// pauses, which samples taken during a window complete.
func (s Source) HasPauses() bool { return s == MemStats || s == Expvar }

// Files lists the names of every file that may hold samples, for a
// bundle's list of the files it knows.
func Files() []string {
	var out []string
	for _, s := range Sources {
		out = append(out, s.File(Start), s.File(End))
		if s.HasPauses() {
			out = append(out, s.File(During))
		}
	}
	return out
}
