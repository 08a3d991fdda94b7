package evidence

import "testing"

func TestCheckProgram(t *testing.T) {
	for _, tt := range []struct {
		goVersion, gogc string
		want, err       string
	}{
		{"", "", "", ""},
		{"go1.21.5", "200", "go1.21.5", ""},
		{"1.21", "off", "go1.21", ""},
		{"", "OFF", "", ""},
		{"one", "", "", `--go-version "one" is not a Go version such as go1.21.5`},
		{"", "lots", "", `--gogc "lots": want a number or off`},
	} {
		o := Options{GoVersion: tt.goVersion, GOGC: tt.gogc}
		err := o.CheckProgram()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err || (err == nil && o.GoVersion != tt.want) {
			t.Errorf("CheckProgram(%q, %q) = %q, %q; want %q, %q", tt.goVersion, tt.gogc, o.GoVersion, got, tt.want, tt.err)
		}
	}
}
