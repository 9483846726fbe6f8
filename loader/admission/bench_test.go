package admission

import (
	"os"
	"strings"
	"testing"
	"time"
)

// BenchmarkAdmitScale admits the HTTPRoutes of a scalegen corpus
// (ADMISSION_CORPUS, a 40-routes.yaml), reporting each phase's time per
// object.
func BenchmarkAdmitScale(b *testing.B) {
	path := os.Getenv("ADMISSION_CORPUS")
	if path == "" {
		b.Skip("ADMISSION_CORPUS not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var docs []string
	for _, d := range strings.Split(string(data), "\n---") {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, d)
		}
	}
	for b.Loop() {
		b.StopTimer()
		objs := make([]map[string]any, len(docs))
		for i, d := range docs {
			objs[i] = parseObject(b, d)
		}
		b.StartTimer()
		var phases [4]time.Duration
		for _, obj := range objs {
			gvk := gvkOf(obj)
			v, _ := lookup(gvk)
			root, _ := v.compiled()
			t0 := time.Now()
			decode(obj, v)
			t1 := time.Now()
			applyDefaults(obj, v)
			t2 := time.Now()
			validateSchema(obj, root, v)
			t3 := time.Now()
			validateCEL(obj, root)
			t4 := time.Now()
			phases[0] += t1.Sub(t0)
			phases[1] += t2.Sub(t1)
			phases[2] += t3.Sub(t2)
			phases[3] += t4.Sub(t3)
		}
		n := float64(len(objs))
		b.ReportMetric(float64(phases[0].Nanoseconds())/n, "decode-ns/obj")
		b.ReportMetric(float64(phases[1].Nanoseconds())/n, "default-ns/obj")
		b.ReportMetric(float64(phases[2].Nanoseconds())/n, "schema-ns/obj")
		b.ReportMetric(float64(phases[3].Nanoseconds())/n, "cel-ns/obj")
	}
}
