package compare

import (
	"fmt"
	"strings"

	"github.com/gcdoctor/gcdoctor/pacer"
)

// columns expands settings by GOEXPERIMENT values: a column per value and
// setting, the values outermost, as collect runs them. With no values the
// columns are the settings and the experiments nil.
func columns(settings []pacer.Setting, experiments []string) ([]pacer.Setting, []string) {
	if len(experiments) == 0 {
		return settings, nil
	}
	var sets []pacer.Setting
	var exps []string
	for _, e := range experiments {
		for _, s := range settings {
			sets = append(sets, s)
			exps = append(exps, e)
		}
	}
	return sets, exps
}

// columnLabel names column i: its setting, after its GOEXPERIMENT value
// when there are several ("nogreenteagc GOGC=100", or the value alone
// when every column has the same setting).
func columnLabel(sets []pacer.Setting, exps []string, i int) string {
	if exps == nil {
		return sets[i].String()
	}
	e := strings.ReplaceAll(exps[i], ",", "+")
	if len(sets) == len(distinct(exps)) {
		return e
	}
	return e + " " + sets[i].String()
}

func distinct(v []string) []string {
	var out []string
	for _, s := range v {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// experimentNotes says what a table that compares GOEXPERIMENT values
// shows, and limits the predictions to the columns built as the model's
// run was.
func (t *Table) experimentNotes(exps []string) {
	if exps == nil {
		return
	}
	vals := distinct(exps)
	labels := make([]string, len(vals))
	for i, v := range vals {
		labels[i] = "GOEXPERIMENT=" + v
	}
	t.Caveats = append(t.Caveats, fmt.Sprintf("The program was built once with each of %s (GOEXPERIMENT is read at build time); the first is the baseline, and a significant change of sec/op, CPU time or GC CPU says which build is better for this program.", strings.Join(labels, ", ")))
}

// dropOtherExperiments removes the model's predictions from the columns
// built with another GOEXPERIMENT value than the model's run: another
// collector marks at another cost, which the model cannot know.
func (t *Table) dropOtherExperiments(exps []string) {
	if exps == nil || t.Model == nil {
		return
	}
	dropped := false
	for _, r := range t.Rows {
		for i := range r.Cells {
			if exps[i] != exps[0] && r.Cells[i].Predicted != nil {
				r.Cells[i].Predicted, dropped = nil, true
			}
		}
	}
	if dropped {
		t.Caveats = append(t.Caveats, fmt.Sprintf("No predictions for the builds without GOEXPERIMENT=%s: the model was fitted on a run of that build, and another collector marks the same heap at another cost.", exps[0]))
	}
}
