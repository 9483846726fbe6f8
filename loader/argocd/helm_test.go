package argocd

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader/helmchart"
)

func helmApp(h *Helm, sources ...Source) *Application {
	app := &Application{}
	app.Metadata.Name = "web"
	app.Metadata.Namespace = "argocd"
	app.Spec.Destination.Namespace = "web-prod"
	if len(sources) > 0 {
		app.Spec.Sources = sources
		return app
	}
	app.Spec.Source = &Source{RepoURL: "https://example.com/repo.git", Path: "charts/web", Helm: h}
	return app
}

func TestHelmOptions(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"charts/web/Chart.yaml":       "name: web\nversion: 0.1.0\n",
		"charts/web/values.yaml":      "a: 1\n",
		"charts/web/values-prod.yaml": "a: 2\n",
		"charts/web/env/a.yaml":       "x: 1\n",
		"charts/web/env/b.yaml":       "x: 2\n",
		"charts/web/env/c.yaml":       "x: 3\n",
		"envs/prod/web.yaml":          "b: 1\n",
	})
	dir := filepath.Join(root, "charts/web")
	abs := func(p string) string { return filepath.Join(root, p) }
	for _, tc := range []struct {
		name string
		h    *Helm
		want helmchart.Options
	}{
		{
			name: "no helm block: release name is the Application's, namespace the destination's, crds/ rendered",
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod", IncludeCRDs: true},
		},
		{
			name: "release name, namespace, kube version",
			h:    &Helm{ReleaseName: "front", Namespace: "other", KubeVersion: "1.29.0"},
			want: helmchart.Options{ReleaseName: "front", Namespace: "other", KubeVersion: "1.29.0", IncludeCRDs: true},
		},
		{
			name: "kube version read as Argo CD reads it",
			h:    &Helm{KubeVersion: "v1.30.2+k3s1"},
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod", KubeVersion: "1.30.2", IncludeCRDs: true},
		},
		{
			name: "api versions, skipCrds, skipTests, skipSchemaValidation",
			h:    &Helm{APIVersions: []string{"monitoring.coreos.com/v1", "projectcontour.io/v1/HTTPProxy"}, SkipCrds: true, SkipTests: true, SkipSchemaValidation: true},
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod",
				APIVersions: []string{"monitoring.coreos.com/v1", "projectcontour.io/v1/HTTPProxy"}, SkipTests: true, SkipSchemaValidation: true},
		},
		{
			name: "file parameters: --set-file, resolved as value files, by name, commas escaped",
			h: &Helm{FileParameters: []HelmParameter{
				{Name: "tls.cert", Path: "values-prod.yaml"},
				{Name: "config", Path: "/envs/prod/web.yaml"},
				{Name: "tls.cert", Path: "env/a.yaml"},
				{Name: "app", Path: "$ARGOCD_APP_NAME.yaml"},
			}},
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod", IncludeCRDs: true, SetFile: []string{
				"app=" + abs("charts/web/web.yaml"), "config=" + abs("envs/prod/web.yaml"), "tls.cert=" + abs("charts/web/env/a.yaml"),
			}},
		},
		{
			name: "value files: from the chart, from the repository root, globs in order, each once",
			h:    &Helm{ValueFiles: []string{"values-prod.yaml", "/envs/prod/web.yaml", "env/*.yaml", "env/b.yaml", "values-prod.yaml"}},
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod", IncludeCRDs: true, ValueFiles: []string{
				abs("charts/web/values-prod.yaml"), abs("envs/prod/web.yaml"), abs("charts/web/env/a.yaml"), abs("charts/web/env/c.yaml"), abs("charts/web/env/b.yaml"),
			}},
		},
		{
			name: "missing value files ignored when asked",
			h:    &Helm{ValueFiles: []string{"nope.yaml", "none/*.yaml", "values.yaml"}, IgnoreMissingValueFiles: true},
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod", IncludeCRDs: true, ValueFiles: []string{abs("charts/web/values.yaml")}},
		},
		{
			name: "values string",
			h:    &Helm{Values: "ingress:\n  host: web.example.com\n"},
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod", IncludeCRDs: true, Values: map[string]any{"ingress": map[string]any{"host": "web.example.com"}}},
		},
		{
			name: "valuesObject wins over values",
			h:    &Helm{Values: "a: 1\n", ValuesObject: []byte(`{"b":2}`)},
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod", IncludeCRDs: true, Values: map[string]any{"b": float64(2)}},
		},
		{
			name: "parameters: set and set-string, by name, commas escaped, environment substituted",
			h: &Helm{Parameters: []HelmParameter{
				{Name: "replicas", Value: "1"},
				{Name: "host", Value: "$ARGOCD_APP_NAME.example.com"},
				{Name: "tag", Value: "1.0", ForceString: true},
				{Name: "list", Value: "{a,b}"},
				{Name: "csv", Value: `a,b\,c`},
				{Name: "replicas", Value: "3"},
			}},
			want: helmchart.Options{ReleaseName: "web", Namespace: "web-prod", IncludeCRDs: true,
				Set:       []string{`csv=a\,b\,c`, "host=web.example.com", "list={a,b}", "replicas=3"},
				SetString: []string{"tag=1.0"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := HelmOptions(helmApp(tc.h), 0, dir, root, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("HelmOptions =\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestHelmOptionsErrors(t *testing.T) {
	root := testfs.Tree(t, map[string]string{"charts/web/Chart.yaml": "name: web\n"})
	dir := filepath.Join(root, "charts/web")
	for _, tc := range []struct {
		name string
		h    *Helm
		want string
	}{
		{"missing value file", &Helm{ValueFiles: []string{"prod.yaml"}}, `values file "prod.yaml" does not exist`},
		{"glob matching none", &Helm{ValueFiles: []string{"env/*.yaml"}}, `values file glob "env/*.yaml" matched no files`},
		{"out of the repository", &Helm{ValueFiles: []string{"../../../x.yaml"}}, "file '../../../x.yaml' resolved to outside repository root"},
		{"remote", &Helm{ValueFiles: []string{"https://example.com/values.yaml"}}, `values file "https://example.com/values.yaml" is remote`},
		{"values not a map", &Helm{Values: "- a\n"}, "helm.values:"},
		{"kube version", &Helm{KubeVersion: "latest"}, `could not parse kubernetes version latest: could not parse "latest" as version`},
		{"file parameter out of the repository", &Helm{FileParameters: []HelmParameter{{Name: "cert", Path: "../../../cert.pem"}}},
			"helm.fileParameters cert: file '../../../cert.pem' resolved to outside repository root"},
		{"file parameter remote", &Helm{FileParameters: []HelmParameter{{Name: "cert", Path: "https://example.com/cert.pem"}}},
			`helm.fileParameters cert: values file "https://example.com/cert.pem" is remote`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := HelmOptions(helmApp(tc.h), 0, dir, root, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestHelmOptionsRefSources: $ref/ value files of a multi-source
// Application are read from the ref source's checkout when it is this
// repository, and refused when it is another.
func TestHelmOptionsRefSources(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"charts/web/Chart.yaml": "name: web\n",
		"values/web/prod.yaml":  "a: 1\n",
	})
	dir := filepath.Join(root, "charts/web")
	chart := Source{RepoURL: "https://example.com/repo.git", Path: "charts/web", Helm: &Helm{ValueFiles: []string{"$values/values/web/prod.yaml"}}}
	app := helmApp(nil, chart, Source{RepoURL: "https://example.com/repo.git", Ref: "values"})
	refs := Refs{"$values": {RepoURL: "https://example.com/repo.git", Root: root}}
	got, _, err := HelmOptions(app, 0, dir, root, refs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(root, "values/web/prod.yaml")}; !reflect.DeepEqual(got.ValueFiles, want) {
		t.Errorf("ValueFiles = %q, want %q", got.ValueFiles, want)
	}
	refs["$values"] = RefSource{RepoURL: "https://example.com/other.git"}
	_, _, err = HelmOptions(app, 0, dir, root, refs)
	if want := `values file "$values/values/web/prod.yaml" is in https://example.com/other.git (source ref "values"), not this repository`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// TestHelmOptionsNoWarnings: every helm option Argo CD passes is applied,
// so none is warned about as left out.
func TestHelmOptionsNoWarnings(t *testing.T) {
	root := testfs.Tree(t, map[string]string{"charts/web/Chart.yaml": "name: web\n", "charts/web/cert.pem": "x"})
	h := &Helm{FileParameters: []HelmParameter{{Name: "cert", Path: "cert.pem"}}, APIVersions: []string{"example.com/v1"}}
	_, warnings, err := HelmOptions(helmApp(h), 0, filepath.Join(root, "charts/web"), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings = %q, want none", warnings)
	}
}
