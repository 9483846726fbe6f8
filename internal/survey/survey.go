// Package survey looks at a repository as `contourc init` needs it: its
// kustomizations and which of them are the ones deployed, the GitOps
// objects contourc does not follow, and the Secrets and Services its routing
// objects refer to that the repository does not hold (the cluster has them).
// Objects are read with the loader, one file at a time, so that a file it
// refuses, or overlays declaring the same object, do not stop the survey.
// Everything is in path order: the same repository gives the same survey.
package survey

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader"
)

// Survey is what a repository holds, its paths relative to the root with
// forward slashes.
type Survey struct {
	// Kustomizations are the directories with a kustomization file.
	Kustomizations []string
	// Roots are the kustomizations no other includes, grouped: the roots of
	// one group include a kustomization in common (overlays of one base),
	// so only one of them is deployed to a cluster.
	Roots [][]string
	// Loose are the top-level files and directories with manifests outside
	// every kustomization.
	Loose []string
	// Unread are the first errors of the files the loader refused, each
	// naming its file.
	Unread []string
	// GitOps counts the objects of the deploy tools by kind ("Flux
	// Kustomization"), with the first file holding one.
	GitOps []Found
	// Certificates counts cert-manager's Certificates and the Ingresses
	// and Gateways with its annotations.
	Certificates []Found
	// MissingSecrets and MissingServices are referred to and absent.
	MissingSecrets  []Missing
	MissingServices []Missing
	// IngressClasses are the classes Ingresses and HTTPProxies ask for,
	// Gateways the Gateways: more than one is more than one Contour.
	IngressClasses []string
	Gateways       []string
}

// Found is a kind of object found, how many, and where the first is.
type Found struct {
	What  string
	Count int
	First string
}

// Missing is an object referred to and absent.
type Missing struct {
	Namespace, Name string
	// Namespaces are those of the objects referring to it from another
	// namespace (a Secret they need delegated).
	Namespaces []string
	// Ports are a Service's ports referred to, as --assume-service writes
	// them: 443/tls.
	Ports []string
	// NamedPorts are the ports referred to by name, whose numbers the
	// repository does not say.
	NamedPorts []string
	// By is the first object referring to it, and where.
	By string
}

var kustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Repository surveys the directory root.
func Repository(root string) (*Survey, error) {
	files, kdirs, err := walk(root)
	if err != nil {
		return nil, err
	}
	s := &Survey{Kustomizations: kdirs}
	s.Roots = rootGroups(root, kdirs)
	objs := readObjects(root, files, s)
	s.Loose = loose(objs, kdirs)
	r := newRefs()
	for _, o := range objs {
		r.add(o)
	}
	r.finish(s)
	return s, nil
}

// walk lists the manifest files and the kustomization directories under
// root, leaving out hidden directories (.git) and Helm charts, as the
// loader's walk does.
func walk(root string) (files, kdirs []string, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := slashRel(root, p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") || exists(filepath.Join(p, "Chart.yaml")) {
				return filepath.SkipDir
			}
			for _, k := range kustomizationFiles {
				if exists(filepath.Join(p, k)) {
					kdirs = append(kdirs, rel)
					break
				}
			}
			return nil
		}
		switch ext := path.Ext(d.Name()); {
		case !d.Type().IsRegular(), ext != ".yaml" && ext != ".yml" && ext != ".json":
		case isKustomizationFile(d.Name()), strings.HasPrefix(d.Name(), "."):
		default:
			files = append(files, rel)
		}
		return nil
	})
	return files, kdirs, err
}

func isKustomizationFile(name string) bool {
	for _, k := range kustomizationFiles {
		if name == k {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func slashRel(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// includes are the local directories a kustomization includes: its
// resources, bases and components that are directories.
func includes(root, dir string) []string {
	var k struct {
		Resources  []string `yaml:"resources"`
		Bases      []string `yaml:"bases"`
		Components []string `yaml:"components"`
	}
	for _, name := range kustomizationFiles {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), name))
		if err != nil {
			continue
		}
		_ = yaml.Unmarshal(b, &k) // a broken kustomization includes nothing here; kustomize will say why
		break
	}
	var out []string
	for _, r := range append(append(k.Resources, k.Bases...), k.Components...) {
		if strings.Contains(r, "://") {
			continue // remote
		}
		target := path.Clean(path.Join(dir, r))
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err == nil && fi.IsDir() {
			out = append(out, target)
		}
	}
	return out
}

// rootGroups are the kustomizations no other includes, grouped by what
// they include in common.
func rootGroups(root string, kdirs []string) [][]string {
	inc := map[string][]string{}
	included := map[string]bool{}
	for _, d := range kdirs {
		inc[d] = includes(root, d)
		for _, t := range inc[d] {
			included[t] = true
		}
	}
	var roots []string
	reach := map[string]map[string]bool{}
	for _, d := range kdirs {
		if included[d] {
			continue
		}
		roots = append(roots, d)
		seen := map[string]bool{}
		var visit func(string)
		visit = func(x string) {
			for _, t := range inc[x] {
				if !seen[t] {
					seen[t] = true
					visit(t)
				}
			}
		}
		visit(d)
		reach[d] = seen
	}
	// Union-find over the roots, each group named by its first root.
	group := make([]int, len(roots))
	for i := range group {
		group[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	for i := range roots {
		for j := i + 1; j < len(roots); j++ {
			if overlap(reach[roots[i]], reach[roots[j]]) {
				a, b := find(i), find(j)
				group[max(a, b)] = min(a, b)
			}
		}
	}
	for i := range group {
		group[i] = find(i)
	}
	byGroup := map[int][]string{}
	var order []int
	for i, r := range roots {
		g := group[i]
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], r)
	}
	out := make([][]string, 0, len(order))
	for _, g := range order {
		out = append(out, byGroup[g])
	}
	return out
}

func overlap(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

// object is a loaded object, or one the loader skips that init counts.
type object struct {
	loader.Object
	file string // relative to the root
}

// readObjects loads each file alone, keeping the first of objects two
// files declare (overlays) and noting the files the loader refuses.
func readObjects(root string, files []string, s *Survey) []object {
	var out []object
	seen := map[string]bool{}
	counts := map[string]*Found{}
	var kinds []string
	count := func(what, file string) {
		f := counts[what]
		if f == nil {
			f = &Found{What: what, First: file}
			counts[what] = f
			kinds = append(kinds, what)
		}
		f.Count++
	}
	gitops := map[string]bool{}
	for _, file := range files {
		res, err := loader.Load([]string{filepath.Join(root, filepath.FromSlash(file))}, loader.Options{})
		if err != nil {
			s.Unread = append(s.Unread, firstLine(err.Error(), root))
			continue
		}
		for key, n := range res.Skipped {
			if what, ok := deployTool(key); ok {
				gitops[what] = true
				for range n {
					count(what, file)
				}
			}
		}
		// The loader keeps cert-manager's Certificates for stand-ins.
		for _, o := range res.SecretSources {
			if isCertificate(o.APIVersion + "/" + o.Kind) {
				count("cert-manager Certificate", file)
			}
		}
		for _, o := range res.Objects {
			k := o.Kind + "/" + o.Obj.GetNamespace() + "/" + o.Obj.GetName()
			if seen[k] {
				continue
			}
			seen[k] = true
			if shim(o) {
				count("cert-manager annotation on an "+o.Kind, file)
			}
			out = append(out, object{Object: o, file: file})
		}
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if gitops[k] {
			s.GitOps = append(s.GitOps, *counts[k])
		} else {
			s.Certificates = append(s.Certificates, *counts[k])
		}
	}
	return out
}

// firstLine is the first line of a loader error, its path made relative.
func firstLine(msg, root string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	return strings.ReplaceAll(msg, root+string(filepath.Separator), "")
}

// deployTool names the deploy tools' objects by their skipped key
// (apiVersion/Kind).
func deployTool(key string) (string, bool) {
	group, _, _ := strings.Cut(key, "/")
	kind := key[strings.LastIndex(key, "/")+1:]
	switch {
	case group == "kustomize.toolkit.fluxcd.io" && kind == "Kustomization":
		return "Flux Kustomization", true
	case group == "helm.toolkit.fluxcd.io" && kind == "HelmRelease":
		return "Flux HelmRelease", true
	case group == "argoproj.io" && (kind == "Application" || kind == "ApplicationSet"):
		return "Argo CD " + kind, true
	}
	return "", false
}

func isCertificate(key string) bool {
	return strings.HasPrefix(key, "cert-manager.io/") && strings.HasSuffix(key, "/Certificate")
}

// shim reports whether an Ingress or Gateway asks cert-manager for its
// certificates with the annotations its ingress-shim and gateway-shim read.
func shim(o loader.Object) bool {
	if o.Kind != "Ingress" && o.Kind != "Gateway" {
		return false
	}
	a := o.Obj.GetAnnotations()
	return a["cert-manager.io/cluster-issuer"] != "" || a["cert-manager.io/issuer"] != "" || o.Kind == "Ingress" && a["kubernetes.io/tls-acme"] == "true"
}

// loose are the top-level entries holding objects from files in no
// kustomization's directory.
func loose(objs []object, kdirs []string) []string {
	set := map[string]bool{}
	for _, o := range objs {
		if underAny(o.file, kdirs) {
			continue
		}
		top, _, _ := strings.Cut(o.file, "/")
		set[top] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func underAny(file string, dirs []string) bool {
	for _, d := range dirs {
		if d == "." || strings.HasPrefix(file, d+"/") {
			return true
		}
	}
	return false
}
