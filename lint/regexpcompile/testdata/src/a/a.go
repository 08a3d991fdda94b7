package a

import (
	"net/http"
	"regexp"
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
