package diff

import (
	"encoding/json"
	"io"
)

// jsonReport is the document WriteJSON writes.
type jsonReport struct {
	Changed bool    `json:"changed"`
	Summary Summary `json:"summary"`
	*Report
}

// WriteJSON writes the report for machines: {"changed", "summary", and the
// report's lists}, every list present ([] when empty).
func WriteJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(newJSONReport(r, !r.Empty()), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// newJSONReport is r as the JSON document has it, every list present.
func newJSONReport(r *Report, changed bool) jsonReport {
	c := *r
	c.Listeners = orEmpty(c.Listeners)
	c.VirtualHosts = orEmpty(c.VirtualHosts)
	c.Clusters = orEmpty(c.Clusters)
	c.Endpoints = orEmpty(c.Endpoints)
	c.Secrets = orEmpty(c.Secrets)
	c.Runtimes = orEmpty(c.Runtimes)
	c.Status = orEmpty(c.Status)
	return jsonReport{Changed: changed, Summary: Summarize(r), Report: &c}
}

func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
