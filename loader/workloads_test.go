package loader

import (
	"os"
	"path/filepath"
	"testing"
)

// Deployments, DaemonSets and ContourDeployments are kept as workloads, and
// still counted skipped; other apps kinds are skipped only.
func TestWorkloadsKept(t *testing.T) {
	dir := t.TempDir()
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata: {name: contour, namespace: projectcontour}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: envoy}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
---
apiVersion: projectcontour.io/v1alpha1
kind: ContourDeployment
metadata: {name: params, namespace: projectcontour}
`
	if err := os.WriteFile(filepath.Join(dir, "w.yaml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range res.Workloads {
		got = append(got, w.Kind+" "+w.Obj.GetNamespace()+"/"+w.Obj.GetName())
	}
	want := []string{"ContourDeployment projectcontour/params", "DaemonSet default/envoy", "Deployment projectcontour/contour"}
	if len(got) != len(want) {
		t.Fatalf("workloads %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("workload %d: %s, want %s", i, got[i], want[i])
		}
	}
	if len(res.Objects) != 0 || len(res.SecretSources) != 0 || res.Read != 0 {
		t.Errorf("objects %d, secret sources %d, read %d: want none", len(res.Objects), len(res.SecretSources), res.Read)
	}
	if res.Skipped["apps/v1/Deployment"] != 1 || res.Skipped["apps/v1/StatefulSet"] != 1 || res.Skipped["projectcontour.io/v1alpha1/ContourDeployment"] != 1 {
		t.Errorf("skipped %v", res.Skipped)
	}
}
