package flux

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/loader"
	_ "github.com/contourc/contourc/loader/helmchart/helmrender"
)

func hr(name, spec string) string {
	return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name + "\n  namespace: web\nspec:\n" + spec + "---\n"
}

const chartYAML = "apiVersion: v2\nname: web\nversion: 1.0.0\n"

func TestHelmReleaseNotFollowedReasons(t *testing.T) {
	git := "      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n"
	root := writeRepo(t, map[string]string{
		"charts/web/Chart.yaml": chartYAML,
		"clusters/hr.yaml": "" +
			hr("remote", "  chart:\n    spec:\n      chart: podinfo\n      sourceRef:\n        kind: HelmRepository\n        name: podinfo\n") +
			hr("oci", "  chartRef:\n    kind: OCIRepository\n    name: podinfo\n") +
			hr("post", "  chart:\n    spec:\n      chart: ./charts/web\n"+git+"  postRenderers:\n  - kustomize:\n      patches: []\n") +
			hr("nochart", "  chart:\n    spec:\n      chart: ./clusters\n"+git) +
			hr("novalues", "  chart:\n    spec:\n      chart: ./charts/web\n"+git+"  valuesFrom:\n  - kind: ConfigMap\n    name: web-values\n"),
	})
	res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{}, nil)
	want := []string{
		"not followed: HelmRelease web/remote: chart from a remote repository (HelmRepository web/podinfo)",
		"not followed: HelmRelease web/oci: chart from OCIRepository web/podinfo (spec.chartRef), a remote repository",
		"not followed: HelmRelease web/post: spec.postRenderers are not applied by contourc",
		"not followed: HelmRelease web/nochart: chart ./clusters has no Chart.yaml",
		`not followed: HelmRelease web/novalues: spec.valuesFrom: values from 'ConfigMap/web-values' error: configmaps "web-values" not found`,
	}
	if got := reports(res); !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The release name, namespace and values are helm-controller's.
func TestReleaseOptions(t *testing.T) {
	values := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-values\n  namespace: web\ndata:\n  values.yaml: |\n    replicas: 2\n    ingress:\n      host: from-configmap.test\n      class: contour\n  host: from-key.test\n"
	root := writeRepo(t, map[string]string{"clusters/cm.yaml": values})
	res, err := loader.Load([]string{filepath.Join(root, "clusters")}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := &loader.FollowInput{Objects: res.Objects}
	co := checkout{root: root}
	for _, tc := range []struct {
		name, spec  string
		release, ns string
		values      string
		valueFiles  []string
	}{
		{"defaults", "{}", "web", "web", "{}", nil},
		{"targetNamespace prefixes the name", "targetNamespace: shop", "shop-web", "shop", "{}", nil},
		{"releaseName wins", "{targetNamespace: shop, releaseName: site}", "site", "shop", "{}", nil},
		{"values over valuesFrom, targetPath", `{valuesFrom: [{kind: ConfigMap, name: web-values}, {kind: ConfigMap, name: web-values, valuesKey: host, targetPath: ingress.host}, {kind: Secret, name: absent, optional: true}], values: {replicas: 3}, chart: {spec: {valuesFiles: [charts/web/prod.yaml]}}}`,
			"web", "web", `{replicas: 3, ingress: {host: from-key.test, class: contour}}`, []string{filepath.Join(root, "charts/web/prod.yaml")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spec map[string]any
			if err := yaml.Unmarshal([]byte(tc.spec), &spec); err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "web"}, "spec": spec}}
			opts, why := releaseOptions(in, co, u)
			if why != "" {
				t.Fatal(why)
			}
			var want map[string]any
			if err := yaml.Unmarshal([]byte(tc.values), &want); err != nil {
				t.Fatal(err)
			}
			if opts.ReleaseName != tc.release || opts.Namespace != tc.ns || !slices.Equal(opts.ValueFiles, tc.valueFiles) {
				t.Errorf("release %q namespace %q files %v, want %q %q %v", opts.ReleaseName, opts.Namespace, opts.ValueFiles, tc.release, tc.ns, tc.valueFiles)
			}
			if !reflect.DeepEqual(normalise(t, opts.Values), want) {
				t.Errorf("values %v, want %v", opts.Values, want)
			}
			if replace := len(tc.valueFiles) > 0; opts.ReplaceChartValues != replace {
				t.Errorf("ReplaceChartValues %v, want %v: valuesFiles are the chart's values", opts.ReplaceChartValues, replace)
			}
		})
	}
}

// helm-controller shortens a release name over Helm's 53 characters to
// its first 40, a hyphen and 12 hex digits of its SHA-256 (checked with
// Python's hashlib).
func TestReleaseNameShortened(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"{releaseName: " + strings.Repeat("a", 53) + "}", strings.Repeat("a", 53)},
		{"{targetNamespace: production-eu-west-1-frontend-storefront-checkout-service}", "production-eu-west-1-frontend-storefront-216f43c85109"},
	} {
		var spec map[string]any
		if err := yaml.Unmarshal([]byte(tc.spec), &spec); err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "web"}, "spec": spec}}
		if got := releaseName(u, str(spec, "targetNamespace")); got != tc.want {
			t.Errorf("%s: release %q, want %q", tc.spec, got, tc.want)
		}
	}
}

// spec.chart.spec.ignoreMissingValuesFiles is passed on.
func TestIgnoreMissingValuesFiles(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "web"},
		"spec": map[string]any{"chart": map[string]any{"spec": map[string]any{"valuesFiles": []any{"charts/web/absent.yaml"}, "ignoreMissingValuesFiles": true}}}}}
	opts, why := releaseOptions(&loader.FollowInput{}, checkout{root: t.TempDir()}, u)
	if why != "" || !opts.IgnoreMissingValueFiles || !opts.ReplaceChartValues {
		t.Errorf("options %+v (%s): want IgnoreMissingValueFiles and ReplaceChartValues", opts, why)
	}
}

// normalise is v as JSON decodes it, so that numbers compare alike.
func normalise(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := yaml.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A HelmRelease of a chart in this repository is rendered, with its
// values over the chart's and into its targetNamespace.
func TestHelmReleaseRendered(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"charts/web/Chart.yaml":           chartYAML,
		"charts/web/values.yaml":          "host: default.test\n",
		"charts/web/templates/proxy.yaml": "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  virtualhost:\n    fqdn: {{ .Values.host }}\n  routes:\n  - services:\n    - name: web\n      port: 80\n",
		"clusters/hr.yaml":                hr("web", "  targetNamespace: shop\n  chart:\n    spec:\n      chart: ./charts/web\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n  values:\n    host: web.example.com\n"),
	})
	res, err := loader.Load([]string{filepath.Join(root, "clusters")}, loader.Options{Follow: &loader.Follow{Followers: []loader.Follower{New(Options{})}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range res.Objects {
		got = append(got, o.Kind+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName()+" "+fqdnOf(o))
	}
	if !slices.Equal(got, []string{"HTTPProxy shop/shop-web web.example.com"}) {
		t.Errorf("objects %v", got)
	}
}
