package argocd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader/kustomize"
)

const kustApp = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
commonLabels:
  team: web
images:
- name: nginx
  newTag: "1.25"
resources:
- deploy.yaml
- service.yaml
`

const kustDeploy = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
      - name: sidecar
        image: envoy:v1
`

const kustService = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
`

// built builds the kustomization of dir with the source's options, and
// returns each object as YAML by "Kind name".
func built(t *testing.T, dir string, k *Kustomize, env Env) map[string]string {
	t.Helper()
	fSys, err := KustomizeFS(filesys.MakeFsOnDisk(), dir, k, env)
	if err != nil {
		t.Fatal(err)
	}
	b, err := kustomize.Run(fSys, dir, kustomize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range b.Resources {
		data, err := yaml.Marshal(r.Node)
		if err != nil {
			t.Fatal(err)
		}
		out[r.Kind+" "+r.Namespace+"/"+r.Name] = string(data)
	}
	return out
}

func TestKustomizeOptions(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"app/kustomization.yaml": kustApp,
		"app/deploy.yaml":        kustDeploy,
		"app/service.yaml":       kustService,
	})
	dir := filepath.Join(root, "app")
	env := Env{"ARGOCD_APP_NAME": "web-prod"}
	objs := built(t, dir, &Kustomize{
		NamePrefix:        "prod-",
		NameSuffix:        "-v2",
		Namespace:         "prod",
		Images:            []string{"envoy=envoyproxy/envoy:v1.30", "nginx=*:1.27"},
		CommonLabels:      map[string]string{"instance": "$ARGOCD_APP_NAME"},
		CommonAnnotations: map[string]string{"note": "$ARGOCD_APP_NAME"},
	}, env)
	svc, ok := objs["Service prod/prod-web-v2"]
	if !ok {
		t.Fatalf("no Service prod/prod-web-v2 among %v", keys(objs))
	}
	for _, want := range []string{"instance: web-prod", "team: web", "note: $ARGOCD_APP_NAME"} {
		if !strings.Contains(svc, want) {
			t.Errorf("Service lacks %q:\n%s", want, svc)
		}
	}
	// commonLabels select too, as `kustomize edit add label` without
	// --without-selector adds them.
	if !strings.Contains(svc, "selector: {app: web, instance: web-prod, team: web}") {
		t.Errorf("Service selector lacks the label:\n%s", svc)
	}
	dep := objs["Deployment prod/prod-web-v2"]
	for _, want := range []string{"image: nginx:1.27", "image: envoyproxy/envoy:v1.30"} {
		if !strings.Contains(dep, want) {
			t.Errorf("Deployment lacks %q:\n%s", want, dep)
		}
	}
	// Nothing is written to the repository.
	if data, _ := os.ReadFile(filepath.Join(dir, "kustomization.yaml")); string(data) != kustApp {
		t.Errorf("kustomization.yaml changed on disk:\n%s", data)
	}
}

func TestKustomizeOptionsWithoutSelector(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"app/kustomization.yaml": "resources: [service.yaml]\n",
		"app/service.yaml":       kustService,
	})
	dir := filepath.Join(root, "app")
	objs := built(t, dir, &Kustomize{
		CommonLabels:              map[string]string{"instance": "a"},
		LabelWithoutSelector:      true,
		CommonAnnotations:         map[string]string{"note": "$ARGOCD_APP_NAME"},
		CommonAnnotationsEnvsubst: true,
	}, Env{"ARGOCD_APP_NAME": "web"})
	svc := objs["Service /web"]
	if !strings.Contains(svc, "instance: a") || !strings.Contains(svc, "note: web") {
		t.Errorf("Service lacks the label or the substituted annotation:\n%s", svc)
	}
	if !strings.Contains(svc, "selector: {app: web}") {
		t.Errorf("a label without selector was added to the selector:\n%s", svc)
	}
}

func TestKustomizeOptionsErrors(t *testing.T) {
	root := testfs.Tree(t, map[string]string{
		"app/kustomization.yaml": kustApp,
		"app/deploy.yaml":        kustDeploy,
		"app/service.yaml":       kustService,
		"plain/service.yaml":     kustService,
	})
	for _, tc := range []struct {
		name, dir string
		k         Kustomize
		want      string
	}{
		{"label there already", "app", Kustomize{CommonLabels: map[string]string{"team": "other"}}, "label team already in kustomization file. Use --force to override."},
		{"image without tag", "app", Kustomize{Images: []string{"nginx"}}, `invalid format of image "nginx"`},
		{"no kustomization", "plain", Kustomize{NamePrefix: "x-"}, "unable to find one of 'kustomization.yaml', 'kustomization.yml', 'Kustomization'"},
		{"bad replicas", "app", Kustomize{Replicas: []Replica{{Name: "web", Count: []byte(`"two"`)}}}, "expected integer value for count. Received: two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := KustomizeFS(filesys.MakeFsOnDisk(), filepath.Join(root, tc.dir), &tc.k, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// Forced, the label is replaced.
	objs := built(t, filepath.Join(root, "app"), &Kustomize{CommonLabels: map[string]string{"team": "other"}, ForceCommonLabels: true}, nil)
	if svc := objs["Service /web"]; !strings.Contains(svc, "team: other") {
		t.Errorf("forced label not replaced:\n%s", svc)
	}
}

// TestKustomizeNoOptions: without options the file system is handed back
// as it is, and the build is kustomize's own.
func TestKustomizeNoOptions(t *testing.T) {
	fSys := filesys.MakeFsInMemory()
	got, err := KustomizeFS(fSys, "/app", &Kustomize{Version: "v5"}, nil)
	if err != nil || got != fSys {
		t.Fatalf("KustomizeFS = %v, %v; want the file system unchanged", got, err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
