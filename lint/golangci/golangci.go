// Package golangci registers gcdoctor's source checks as a golangci-lint
// module plugin, so they run inside golangci-lint with its configuration,
// caching and reporting.
//
// golangci-lint builds a custom binary that includes the plugin
// (golangci-lint custom, with a .custom-gcl.yml naming this module);
// docs/lint.md shows the files. Settings select checks:
//
//	linters-settings:
//	  custom:
//	    gcdoctor:
//	      type: module
//	      settings:
//	        disable: [unboundedgo]
package golangci

import (
	"fmt"
	"slices"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/gcdoctor/gcdoctor/lint"
)

func init() {
	register.Plugin("gcdoctor", New)
}

// Settings are the plugin's settings in golangci-lint's configuration.
type Settings struct {
	// Disable lists checks to leave out, by rule ID.
	Disable []string `json:"disable"`
}

type plugin struct{ settings Settings }

// New is the plugin constructor golangci-lint calls with the settings.
func New(raw any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](raw)
	if err != nil {
		return nil, err
	}
	for _, id := range s.Disable {
		if lint.Lookup(id) == nil {
			return nil, fmt.Errorf("gcdoctor: no check %q to disable", id)
		}
	}
	return &plugin{settings: s}, nil
}

// BuildAnalyzers returns the enabled checks.
func (p *plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	var out []*analysis.Analyzer
	for _, a := range lint.Analyzers() {
		if !slices.Contains(p.settings.Disable, a.Name) {
			out = append(out, a)
		}
	}
	return out, nil
}

// GetLoadMode says the checks need type information.
func (p *plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
