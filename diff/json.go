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
	c := *r
	c.Listeners = orEmpty(c.Listeners)
	c.VirtualHosts = orEmpty(c.VirtualHosts)
	c.Clusters = orEmpty(c.Clusters)
	c.Endpoints = orEmpty(c.Endpoints)
	c.Secrets = orEmpty(c.Secrets)
	c.Runtimes = orEmpty(c.Runtimes)
	c.Status = orEmpty(c.Status)
	b, err := json.MarshalIndent(jsonReport{Changed: !r.Empty(), Summary: Summarize(r), Report: &c}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
