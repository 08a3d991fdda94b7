// Package sarif holds the subset of SARIF 2.1.0 that gcdoctor writes: one
// run of one tool, with rules and results located in source files. GitHub
// code scanning reads it (https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning).
package sarif

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// Version and Schema identify the SARIF specification the types follow.
const (
	Version = "2.1.0"
	Schema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

// Log is a SARIF log file.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one invocation of a tool and what it found.
type Run struct {
	Tool    Tool     `json:"tool"`
	Results []Result `json:"results"`
}

// Tool names the analysis tool.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the tool's main component, with the rules its results refer to.
type Driver struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []Rule `json:"rules"`
}

// Rule is a reportingDescriptor: what one rule checks, with its help text.
type Rule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     Message        `json:"shortDescription"`
	FullDescription      Message        `json:"fullDescription"`
	HelpURI              string         `json:"helpUri,omitempty"`
	Help                 Message        `json:"help"`
	DefaultConfiguration *Configuration `json:"defaultConfiguration,omitempty"`
}

// Configuration is a rule's default reporting configuration.
type Configuration struct {
	Level string `json:"level"` // "error", "warning" or "note"
}

// Message is text, optionally with a Markdown rendering.
type Message struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

// Result is one finding of one rule.
type Result struct {
	RuleID    string     `json:"ruleId"`
	RuleIndex int        `json:"ruleIndex"`
	Level     string     `json:"level"`
	Message   Message    `json:"message"`
	Locations []Location `json:"locations"`
}

// Location is where a result was found.
type Location struct {
	PhysicalLocation PhysicalLocation `json:"physicalLocation"`
}

// PhysicalLocation is a region of a file.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           Region           `json:"region"`
}

// ArtifactLocation names a file by URI, relative to the root of the
// checkout when code scanning is to show it.
type ArtifactLocation struct {
	URI string `json:"uri"`
}

// Region is a span of lines (1-based) and, optionally, a column.
type Region struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
}

// NewLog returns a log with one run of gcdoctor holding rules and results.
// A nil results slice is written as [] because code scanning rejects a run
// without results.
func NewLog(toolVersion string, rules []Rule, results []Result) *Log {
	if results == nil {
		results = []Result{}
	}
	if rules == nil {
		rules = []Rule{}
	}
	return &Log{
		Schema:  Schema,
		Version: Version,
		Runs: []Run{{
			Tool: Tool{Driver: Driver{
				Name:           "gcdoctor",
				Version:        toolVersion,
				InformationURI: "https://github.com/gcdoctor/gcdoctor",
				Rules:          rules,
			}},
			Results: results,
		}},
	}
}

// Write encodes the log as indented JSON.
func (l *Log) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(l)
}

// URI turns a relative file path into a relative URI reference: slashes as
// separators and each segment percent-encoded, so that a space or a '#' in
// a file name cannot change what the URI points at.
func URI(file string) string {
	segs := strings.Split(filepath.ToSlash(file), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
