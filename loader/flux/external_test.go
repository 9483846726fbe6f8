package flux

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader"
)

// generator is an ArtifactGenerator of the flux-system namespace.
func generator(name, spec string) string {
	return "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata:\n  name: " + name + "\n  namespace: flux-system\nspec:\n" + spec + "---\n"
}

// eaKs is a Kustomization of the ExternalArtifact artifact.
func eaKs(name, artifact, path string) string {
	return ks("kustomize.toolkit.fluxcd.io/v1", name, "  path: "+path+"\n  sourceRef:\n    kind: ExternalArtifact\n    name: "+artifact+"\n")
}

// The layout of fluxcd/flux2-kustomize-helm-example since Flux 2.7: the
// bootstrap Kustomization applies clusters/staging, where an
// ArtifactGenerator composes "apps" from apps/base and apps/staging of
// the repository, side by side, and the Kustomization apps builds
// ./staging of it (which uses ../base) with its patches and variables.
// Its objects point at the repository's files.
func TestExternalArtifactFollowed(t *testing.T) {
	root := writeRepo(t, map[string]string{
		".sourceignore": "/*\n!/apps/\n!/clusters/\n",
		"clusters/staging/flux-system/gotk-sync.yaml": "" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: ssh://git@github.com/example/fleet\n---\n" +
			ks("kustomize.toolkit.fluxcd.io/v1", "flux-system", "  path: ./clusters/staging\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"),
		"clusters/staging/artifacts.yaml": generator("flux-system", `  sources:
    - alias: monorepo
      kind: GitRepository
      name: flux-system
  artifacts:
    - name: apps
      originRevision: "@monorepo"
      copy:
        - from: "@monorepo/apps/base/**"
          to: "@artifact/base/"
        - from: "@monorepo/apps/staging/**"
          to: "@artifact/staging/"
`),
		"clusters/staging/apps.yaml": ks("kustomize.toolkit.fluxcd.io/v1", "apps", `  sourceRef:
    kind: ExternalArtifact
    name: apps
  path: ./staging
  targetNamespace: web
  postBuild:
    substitute:
      DOMAIN: staging.example.com
`),
		"apps/base/web/kustomization.yaml": "resources: [svc.yaml, proxy.yaml, ingress.yaml]\n",
		"apps/base/web/svc.yaml":           strings.Replace(svc, "  namespace: web\n", "", 1),
		"apps/base/web/proxy.yaml":         proxy,
		"apps/base/web/ingress.yaml":       "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  rules:\n  - host: www.${DOMAIN}\n    http:\n      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n          service:\n            name: web\n            port:\n              number: 80\n",
		"apps/staging/kustomization.yaml":  "resources: [../base/web]\npatches:\n- target: {kind: HTTPProxy}\n  patch: |\n    - op: add\n      path: /spec/virtualhost/fqdn\n      value: web.${DOMAIN}\n",
		// Not in the GitRepository's artifact (the .sourceignore), so not
		// in the ExternalArtifact's either.
		"docs/staging.yaml": svc,
	})
	res := load(t, root, []string{filepath.Join(root, "clusters/staging")}, Options{}, nil)
	want := []string{
		"followed: Kustomization flux-system/apps -> staging/ of ExternalArtifact flux-system/apps (3 objects)",
		"followed: Kustomization flux-system/flux-system -> clusters/staging/ (4 objects)",
	}
	if got := reports(res); !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var got []string
	for _, o := range res.Objects {
		switch o.Kind {
		case "HTTPProxy", "Ingress", "Service":
			got = append(got, o.Kind+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName()+" "+strings.ReplaceAll(o.Source.String(), root+"/", ""))
		}
	}
	wantObjs := []string{
		"HTTPProxy web/web clusters/staging/apps.yaml:1 Kustomization flux-system/apps → apps/base/web/proxy.yaml:1",
		"Ingress web/web clusters/staging/apps.yaml:1 Kustomization flux-system/apps → apps/base/web/ingress.yaml:1",
		"Service web/web clusters/staging/apps.yaml:1 Kustomization flux-system/apps → apps/base/web/svc.yaml:1",
	}
	slices.Sort(got)
	if !slices.Equal(got, wantObjs) {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantObjs, "\n"))
	}
	for _, o := range res.Objects {
		if o.Kind == "HTTPProxy" {
			if fqdn := fqdnOf(o); fqdn != "web.staging.example.com" {
				t.Errorf("fqdn %q, want web.staging.example.com", fqdn)
			}
		}
	}
}

// A Kustomization of an ExternalArtifact that is not followed says why:
// no generator of the input makes it, it copies from a source that is
// not this repository, a copy contourc does not model or that fails in
// source-watcher, a path the artifact lacks. An artifact copying only
// from this repository is followed though its generator has other
// sources.
func TestExternalArtifactNotFollowedReasons(t *testing.T) {
	sources := `  sources:
    - alias: repo
      kind: GitRepository
      name: flux-system
    - alias: oci
      kind: OCIRepository
      name: podinfo
    - alias: other
      kind: GitRepository
      name: other
`
	root := writeRepo(t, map[string]string{
		"apps/web/svc.yaml":       svc,
		"apps/values/values.yaml": "a: 1\n",
		"clusters/prod/ks.yaml": generator("gen", sources+`  artifacts:
    - name: web
      copy:
        - from: "@repo/apps/web/**"
          to: "@artifact/"
    - name: oci
      copy:
        - from: "@oci/**"
          to: "@artifact/"
    - name: other
      copy:
        - from: "@other/deploy/"
          to: "@artifact/"
    - name: tarballs
      copy:
        - from: "@repo/charts/*.tgz"
          to: "@artifact/"
          strategy: Extract
    - name: merged
      copy:
        - from: "@repo/apps/values/"
          to: "@artifact/"
        - from: "@repo/apps/values/values.yaml"
          to: "@artifact/values/values.yaml"
          strategy: Merge
    - name: nomatch
      copy:
        - from: "@repo/apps/*.json"
          to: "@artifact/"
`) + generator("patterned", "  sources:\n    - alias: repo\n      kind: GitRepository\n      name: flux-system\n  pathPattern: \"@repo/apps/{app}\"\n  artifacts:\n    - name: \"{app}\"\n      copy:\n        - from: \"@repo/apps/{app}/**\"\n          to: \"@artifact/\"\n") +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: other\n  namespace: flux-system\nspec:\n  url: https://github.com/example/other\n---\n" +
			eaKs("web", "web", "./") +
			eaKs("missing-path", "web", "./nowhere") +
			eaKs("outside", "web", "../x") +
			eaKs("oci", "oci", "./") +
			eaKs("other", "other", "./") +
			eaKs("tarballs", "tarballs", "./") +
			eaKs("merged", "merged", "./") +
			eaKs("nomatch", "nomatch", "./") +
			eaKs("none", "none", "./") +
			"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: chart\n  namespace: flux-system\nspec:\n  chartRef:\n    kind: ExternalArtifact\n    name: web\n",
	})
	res := load(t, root, []string{filepath.Join(root, "clusters")}, Options{}, nil)
	want := []string{
		"followed: Kustomization flux-system/web -> ./ of ExternalArtifact flux-system/web (1 object)",
		"not followed: Kustomization flux-system/missing-path: path ./nowhere is not a directory of ExternalArtifact flux-system/web",
		"not followed: Kustomization flux-system/outside: path ../x is outside ExternalArtifact flux-system/web",
		"not followed: Kustomization flux-system/oci: ExternalArtifact flux-system/oci copies from @oci of ArtifactGenerator flux-system/gen: source OCIRepository flux-system/podinfo is not this repository (name it, and the directory its artifact is pushed from, with --flux-source OCIRepository/flux-system/podinfo=DIR)",
		"not followed: Kustomization flux-system/other: ExternalArtifact flux-system/other copies from @other of ArtifactGenerator flux-system/gen: source GitRepository flux-system/other is not this repository",
		"not followed: Kustomization flux-system/tarballs: ArtifactGenerator flux-system/gen, artifact tarballs: copy from '@repo/charts/*.tgz' uses strategy Extract (unpacking tarballs), which contourc does not model",
		"not followed: Kustomization flux-system/merged: ArtifactGenerator flux-system/gen, artifact merged: copy from '@repo/apps/values/values.yaml' merges apps/values/values.yaml into the artifact's values/values.yaml (strategy Merge), which contourc does not model",
		"not followed: Kustomization flux-system/nomatch: ArtifactGenerator flux-system/gen: nomatch build failed: failed to apply copy operation from '@repo/apps/*.json' to '@artifact/': no files match pattern 'apps/*.json' in source 'repo'",
		"not followed: Kustomization flux-system/none: source ExternalArtifact flux-system/none is made by no ArtifactGenerator of the input by name (ArtifactGenerator flux-system/patterned's spec.pathPattern, which contourc does not expand, may make it)",
		"not followed: HelmRelease flux-system/chart: chart from ExternalArtifact flux-system/web (spec.chartRef): charts of ExternalArtifacts are not rendered by contourc",
	}
	if got := reports(res); !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A build of the composed artifact finds only what is in it: a
// kustomization that reaches back into the repository by a path the
// artifact does not have fails as it would in Flux, and the message names
// the artifact's path.
func TestExternalArtifactHasOnlyItsFiles(t *testing.T) {
	root := writeRepo(t, map[string]string{
		// In place of the defaults: .sops.yaml is in the GitRepository's
		// artifact, and left out of the ExternalArtifact's by them.
		".sourceignore":                 "/docs/\n",
		"apps/web/svc.yaml":             svc,
		"apps/web/kustomization.yaml":   "resources: [svc.yaml, ../shared/cm.yaml]\n",
		"apps/shared/cm.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n",
		"apps/web/.sops.yaml":           "creation_rules: []\n",
		"apps/other/kustomization.yaml": "resources: [.sops.yaml]\n",
		"apps/other/.sops.yaml":         "creation_rules: []\n",
		"clusters/ks.yaml": generator("gen", "  sources:\n    - alias: repo\n      kind: GitRepository\n      name: flux-system\n  artifacts:\n    - name: web\n      copy:\n        - from: \"@repo/apps/web/\"\n          to: \"@artifact/\"\n        - from: \"@repo/apps/other/\"\n          to: \"@artifact/\"\n") +
			eaKs("web", "web", "./web") + eaKs("other", "web", "./other"),
	})
	_, err := loader.Load([]string{filepath.Join(root, "clusters")}, loader.Options{Follow: &loader.Follow{Followers: []loader.Follower{New(Options{})}}})
	if err == nil {
		t.Fatal("no error")
	}
	msg := strings.ReplaceAll(err.Error(), root+"/", "")
	for _, want := range []string{
		"accumulating resources from '../shared/cm.yaml': open ExternalArtifact flux-system/web:shared/cm.yaml: no such file or directory",
		"ExternalArtifact flux-system/web:other/.sops.yaml: no such file or directory (not in the artifact of ExternalArtifact flux-system/web: pattern \"**/.sops.yaml\" of source-controller's default exclusions)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error:\n%s\nwant one with %q", msg, want)
		}
	}
}
