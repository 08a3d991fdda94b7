package cli

import (
	"encoding/json"
	"io"

	"github.com/gcdoctor/gcdoctor/exectrace"
	"github.com/gcdoctor/gcdoctor/workers"
)

// writeWorkersJSON prints a worker-count recommendation (docs/json.md).
func writeWorkersJSON(w io.Writer, g *exectrace.Group, r workers.Recommendation) error {
	doc := struct {
		SchemaVersion int      `json:"schema_version"`
		Group         string   `json:"group"`
		Count         int      `json:"count"`
		Workers       int      `json:"workers"`
		Range         [2]int   `json:"range"`
		GOMAXPROCS    int      `json:"gomaxprocs"`
		Utilization   float64  `json:"utilization"`
		WaitRatio     float64  `json:"wait_ratio"`
		QueueRatio    float64  `json:"queue_ratio"`
		Explanation   []string `json:"explanation"`
	}{1, g.Name, g.Count, r.Workers, r.Range, r.GOMAXPROCS, r.Utilization, r.WaitRatio, r.QueueRatio, r.Explanation}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
