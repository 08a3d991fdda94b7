package sarif

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"pkg/file.go", "pkg/file.go"},
		{"dir with space/a b.go", "dir%20with%20space/a%20b.go"},
		{"x/a#b?.go", "x/a%23b%3F.go"},
		{"big|buf`x`.go", "big%7Cbuf%60x%60.go"},
		{"/abs/path.go", "/abs/path.go"},
		{"ünï/cödé.go", "%C3%BCn%C3%AF/c%C3%B6d%C3%A9.go"},
	}
	for _, tt := range tests {
		if got := URI(tt.in); got != tt.want {
			t.Errorf("URI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A run without results must still hold "results": [] and "rules": [],
// which code scanning requires.
func TestNewLogEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := NewLog("v1", nil, nil).Write(&buf); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["version"] != "2.1.0" || doc["$schema"] != Schema {
		t.Errorf("header %v", doc)
	}
	run := doc["runs"].([]any)[0].(map[string]any)
	res, ok := run["results"].([]any)
	if !ok || len(res) != 0 {
		t.Errorf("results = %#v, want []", run["results"])
	}
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if rules, ok := driver["rules"].([]any); !ok || len(rules) != 0 || driver["name"] != "gcdoctor" || driver["version"] != "v1" {
		t.Errorf("driver %#v", driver)
	}
}
