package golangci

import (
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"

	"github.com/gcdoctor/gcdoctor/lint"
)

func TestPluginRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin("gcdoctor")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(map[string]any{"disable": []string{"unboundedgo"}})
	if err != nil {
		t.Fatal(err)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != len(lint.Analyzers())-1 {
		t.Errorf("%d analyzers, want all but one", len(as))
	}
	for _, a := range as {
		if a.Name == "unboundedgo" {
			t.Errorf("disabled check still built")
		}
	}
	if p.GetLoadMode() != register.LoadModeTypesInfo {
		t.Errorf("load mode %q", p.GetLoadMode())
	}
	if _, err := newPlugin(map[string]any{"disable": []string{"nosuchcheck"}}); err == nil || !strings.Contains(err.Error(), "nosuchcheck") {
		t.Errorf("unknown check accepted: %v", err)
	}
}
