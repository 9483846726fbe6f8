package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader/walk"
)

// dirFollower follows every argoproj.io Thing by reading the files of its
// spec.path (from root) as they are: enough of a tool to test the engine.
type dirFollower struct{ root string }

func (f dirFollower) Entries(in *FollowInput, objs []Object) []Entry {
	var out []Entry
	for _, o := range objs {
		if o.Kind != "Thing" {
			continue
		}
		u := o.Obj.(*unstructured.Unstructured)
		path, _, _ := unstructured.NestedString(u.Object, "spec", "path")
		if path == "" {
			out = append(out, Entry{Object: o, NotFollowed: "no path"})
			continue
		}
		dir := filepath.Join(f.root, path)
		out = append(out, Entry{Object: o, Key: path, Path: path + "/", Covers: []string{walk.RealPath(dir)}, Build: func() (*Built, error) {
			names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
			if err != nil {
				return nil, err
			}
			b := &Built{Namespace: "from-entry"}
			for _, n := range names {
				data, err := os.ReadFile(n)
				if err != nil {
					return nil, err
				}
				b.Files = append(b.Files, BuiltFile{Name: n, Data: data})
			}
			return b, nil
		}})
	}
	return out
}

func thing(name, path string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Thing\nmetadata:\n  name: " + name + "\n  namespace: ops\nspec:\n  path: " + path + "\n"
}

func svc(name string) string {
	return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\nspec:\n  ports:\n  - port: 80\n"
}

func TestFollowRecursesOnceAndKeepsOrigins(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, root, map[string]string{
		// top reaches itself (as the bootstrap Kustomization does), a,
		// and b twice (b and b-again build the same path).
		"top/self.yaml":    thing("top", "top"),
		"top/a.yaml":       thing("a", "apps/a"),
		"top/b.yaml":       thing("b", "apps/b") + "---\n" + thing("b-again", "apps/b"),
		"top/none.yaml":    thing("none", ""),
		"apps/a/s.yaml":    svc("a") + "---\n" + thing("deep", "apps/deep"),
		"apps/b/s.yaml":    svc("b"),
		"apps/deep/s.yaml": svc("deep"),
	})
	res, err := Load([]string{root}, Options{Follow: &Follow{Followers: []Follower{dirFollower{root}}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range res.Objects {
		got = append(got, o.Obj.GetNamespace()+"/"+o.Obj.GetName()+" "+strings.ReplaceAll(o.Source.String(), root+"/", ""))
	}
	want := []string{
		"from-entry/a top/a.yaml:1 Thing ops/a → apps/a/s.yaml:1",
		"from-entry/b top/b.yaml:1 Thing ops/b → apps/b/s.yaml:1",
		"from-entry/deep apps/a/s.yaml:9 Thing ops/deep → apps/deep/s.yaml:1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var reports []string
	for _, e := range res.Entries {
		reports = append(reports, e.String())
	}
	// The walk read apps/a/s.yaml too, so deep is met first, in the
	// walk's file order; b-again builds what b built.
	wantReports := []string{
		"followed: Thing ops/deep -> apps/deep/ (1 object)",
		"followed: Thing ops/a -> apps/a/ (2 objects)",
		"followed: Thing ops/b -> apps/b/ (1 object)",
		"followed: Thing ops/b-again -> apps/b/ (1 object)",
		"not followed: Thing ops/none: no path",
		"followed: Thing ops/top -> top/ (5 objects)",
	}
	if strings.Join(reports, "\n") != strings.Join(wantReports, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(reports, "\n"), strings.Join(wantReports, "\n"))
	}
	if len(res.GitOps) != 6 {
		t.Errorf("GitOps: %d objects, want 6", len(res.GitOps))
	}
}

func TestWithoutFollowGitOpsObjectsAreSkipped(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, root, map[string]string{"a.yaml": thing("a", "apps/a"), "s.yaml": svc("s")})
	res, err := Load([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped["argoproj.io/v1alpha1/Thing"] != 1 || len(res.GitOps) != 0 || len(res.Objects) != 1 {
		t.Errorf("skipped %v, gitops %d, objects %d", res.Skipped, len(res.GitOps), len(res.Objects))
	}
}

// TestFollowEntriesAChartRenders: the entry points a chart given as a
// path renders (an app-of-apps chart of Argo CD Applications) are
// followed, as those of files are.
func TestFollowEntriesAChartRenders(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, root, map[string]string{
		"apps/Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 0.1.0\n",
		"apps/values.yaml":         "apps: [web]\n",
		"apps/templates/apps.yaml": "{{- range .Values.apps }}\n" + thing("{{ . }}", "workloads/{{ . }}") + "---\n{{ end -}}\n",
		"workloads/web/s.yaml":     svc("web"),
	})
	res, err := Load([]string{filepath.Join(root, "apps")}, Options{Follow: &Follow{Followers: []Follower{dirFollower{root}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 1 || !res.Entries[0].Followed || len(res.Objects) != 1 || res.Objects[0].Obj.GetNamespace() != "from-entry" {
		t.Errorf("entries %v, objects %d: want the chart's Thing followed to its Service", res.Entries, len(res.Objects))
	}
}
