package lint

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// WriteSARIF writes result as a SARIF 2.1.0 log with one run whose
// tool.driver.rules describe analyzers (nil means Analyzers()).
func WriteSARIF(w io.Writer, result *Result, analyzers ...*analysis.Analyzer) error {
	if len(analyzers) == 0 {
		analyzers = Analyzers()
	}
	type text struct {
		Text string `json:"text"`
	}
	type rule struct {
		ID               string `json:"id"`
		Name             string `json:"name"`
		ShortDescription text   `json:"shortDescription"`
		FullDescription  text   `json:"fullDescription"`
		HelpURI          string `json:"helpUri,omitempty"`
		Help             text   `json:"help"`
	}
	type region struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
	type artifact struct {
		URI string `json:"uri"`
	}
	type physical struct {
		ArtifactLocation artifact `json:"artifactLocation"`
		Region           region   `json:"region"`
	}
	type location struct {
		PhysicalLocation physical `json:"physicalLocation"`
	}
	type sarifResult struct {
		RuleID    string     `json:"ruleId"`
		RuleIndex int        `json:"ruleIndex"`
		Level     string     `json:"level"`
		Message   text       `json:"message"`
		Locations []location `json:"locations"`
	}
	var rules []rule
	index := map[string]int{}
	for i, a := range analyzers {
		index[a.Name] = i
		rules = append(rules, rule{
			ID:               a.Name,
			Name:             a.Name,
			ShortDescription: text{Title(a)},
			FullDescription:  text{a.Doc},
			HelpURI:          a.URL,
			Help:             text{a.Doc},
		})
	}
	results := []sarifResult{}
	if result != nil {
		for _, d := range result.Diagnostics {
			level := "warning"
			if d.Severity == "info" {
				level = "note"
			}
			results = append(results, sarifResult{
				RuleID:    d.Rule,
				RuleIndex: index[d.Rule],
				Level:     level,
				Message:   text{d.Message},
				Locations: []location{{PhysicalLocation: physical{
					ArtifactLocation: artifact{URI: strings.ReplaceAll(filepath.ToSlash(d.File), " ", "%20")},
					Region:           region{StartLine: d.Line, StartColumn: d.Column},
				}}},
			})
		}
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool": map[string]any{"driver": map[string]any{
				"name":           "gcdoctor",
				"informationUri": "https://github.com/gcdoctor/gcdoctor",
				"rules":          rules,
			}},
			"results": results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
