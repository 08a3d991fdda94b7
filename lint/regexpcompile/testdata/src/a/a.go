package a

import (
	"net/http"
	"regexp"
	"strings"
	"text/template"
)

const digits = `\d+`

func handle(w http.ResponseWriter, r *http.Request) {
	re := regexp.MustCompile(`^/users/(\d+)$`) // want `regexp.MustCompile with a constant pattern is compiled on every HTTP request`
	_ = re.FindStringSubmatch(r.URL.Path)
}

func count(lines []string) int {
	n := 0
	for _, l := range lines {
		if regexp.MustCompile(digits).MatchString(l) { // want `regexp.MustCompile with a constant pattern is compiled on every iteration of a loop`
			n++
		}
	}
	return n
}

func render(w http.ResponseWriter, r *http.Request) {
	template.Must(template.New("page").Parse("<p>{{.}}</p>")).Execute(w, r.URL.Path) // want `template.Must\(template.New\(...\).Parse\(...\)\) with constant text is compiled on every HTTP request`
}

var renderTmpl = 1

func render2(w http.ResponseWriter, r *http.Request) {
	t := template.Must(template.New("page").Parse("<p>{{.}}</p>")) // want `template.Must`
	t.Execute(w, r.URL.Path)
}

// Flagged without a fix: the template is extended.
func renderFuncs(w http.ResponseWriter, r *http.Request) {
	t := template.Must(template.New("page").Parse("<p>{{.}}</p>")) // want `template.Must`
	t.Funcs(nil)
	t.Execute(w, r.URL.Path)
}

// Flagged without a fix: Compile's error handling would change.
func compile(lines []string) {
	for range lines {
		re, err := regexp.Compile(`a+`) // want `regexp.Compile with a constant pattern is compiled on every iteration`
		_, _ = re, err
	}
}

// Flagged without a fix: the pattern is a local constant.
func local(lines []string) {
	const p = "x"
	for range lines {
		_ = regexp.MustCompile(p) // want `regexp.MustCompile`
	}
}

// Not flagged: dynamic pattern.
func dynamic(patterns []string) {
	for _, p := range patterns {
		_ = regexp.MustCompile(p)
	}
}

// Not flagged: runs once.
func once() *regexp.Regexp {
	return regexp.MustCompile(`a+`)
}

// Not flagged: a package-level variable already.
var pkgRe = regexp.MustCompile(`a+`)

// Not flagged: each key of a map comes once, so the case runs once per
// map (nats-server opts.go, hugo import.go).
func options(opts map[string]string) bool {
	ok := true
	for k, v := range opts {
		switch strings.ToLower(k) {
		case "pin":
			re := regexp.MustCompile(`^[0-9a-f]{64}$`)
			ok = ok && re.MatchString(v)
		}
	}
	return ok
}

// Not flagged: the same through a variable set from the key.
func options2(opts map[string]string) bool {
	ok := true
	for k, v := range opts {
		lower := strings.ToLower(k)
		switch lower {
		case "pin", "pins":
			ok = ok && regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(v)
		}
	}
	return ok
}

// Flagged: the default case runs for every other key.
func optionsDefault(opts map[string]string) {
	for k, v := range opts {
		switch k {
		case "x":
		default:
			re, _ := regexp.Compile(`^[0-9a-f]+$`) // want `regexp.Compile`
			_ = re.MatchString(v)
		}
	}
}

// Flagged: the switch is on the value, which repeats.
func optionsByValue(opts map[string]string) {
	for _, v := range opts {
		switch v {
		case "x":
			re, _ := regexp.Compile(`^[0-9a-f]+$`) // want `regexp.Compile`
			_ = re.MatchString(v)
		}
	}
}

// Flagged: the map is read once per configuration.
func optionsPerConfig(configs []map[string]string) {
	for _, opts := range configs {
		for k, v := range opts {
			switch k {
			case "pin":
				re, _ := regexp.Compile(`^[0-9a-f]+$`) // want `regexp.Compile`
				_ = re.MatchString(v)
			}
		}
	}
}

// Not flagged: compiled on the loop's way out, at most once.
func firstBad(lines []string) string {
	for _, l := range lines {
		if l == "" {
			re, _ := regexp.Compile(`^\s*$`)
			return re.String()
		}
	}
	return ""
}
