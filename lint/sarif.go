package lint

import (
	"io"

	"golang.org/x/tools/go/analysis"

	"github.com/gcdoctor/gcdoctor/internal/sarif"
)

// WriteSARIF writes result as a SARIF 2.1.0 log with one run whose
// tool.driver.rules describe analyzers (nil means Analyzers()).
func WriteSARIF(w io.Writer, result *Result, analyzers ...*analysis.Analyzer) error {
	if len(analyzers) == 0 {
		analyzers = Analyzers()
	}
	var rules []sarif.Rule
	index := map[string]int{}
	for i, a := range analyzers {
		index[a.Name] = i
		rules = append(rules, sarif.Rule{
			ID:               a.Name,
			Name:             a.Name,
			ShortDescription: sarif.Message{Text: Title(a)},
			FullDescription:  sarif.Message{Text: a.Doc},
			HelpURI:          a.URL,
			Help:             sarif.Message{Text: a.Doc},
		})
	}
	var results []sarif.Result
	if result != nil {
		for _, d := range result.Diagnostics {
			level := "warning"
			if d.Severity == "info" {
				level = "note"
			}
			results = append(results, sarif.Result{
				RuleID:    d.Rule,
				RuleIndex: index[d.Rule],
				Level:     level,
				Message:   sarif.Message{Text: d.Message},
				Locations: []sarif.Location{{PhysicalLocation: sarif.PhysicalLocation{
					ArtifactLocation: sarif.ArtifactLocation{URI: sarif.URI(d.File)},
					Region:           sarif.Region{StartLine: d.Line, StartColumn: d.Column},
				}}},
			})
		}
	}
	return sarif.NewLog("", rules, results).Write(w)
}
