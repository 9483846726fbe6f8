package argocd

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/loader/helmchart"
)

// helm.go: a helm source's options as `helm template` options, the way
// Argo CD's repo server passes them (reposerver/repository: helmTemplate,
// util/helm: template): --name-template is helm.releaseName or the
// Application's name; --namespace helm.namespace or the destination's;
// --values each of valueFiles (resolved from the source's path, from the
// repository root when written /like/this, from another source's
// checkout when written $ref/like/this), then one more file of
// valuesObject, or of values when there is no valuesObject; --set and
// --set-string the parameters, with Argo CD's build environment
// substituted and commas escaped; --set-file the fileParameters, resolved
// as value files are; --api-versions, --kube-version, --skip-tests and
// --skip-schema-validation from the fields of those names, and
// --include-crds unless skipCrds.

// Refs locates the sources of a multi-source Application that have a ref:
// "$name" -> the directory of its checkout when it is this repository,
// "" when it is another repository (whose files contourc does not have).
type Refs map[string]RefSource

// RefSource is a source with a ref.
type RefSource struct {
	RepoURL string
	Root    string // this checkout's root; "" for another repository
}

// HelmOptions are the helm template options of source i of app, whose
// chart is at appDir in the checkout at repoRoot. Warnings would name
// options contourc does not apply: there are none left, but the caller
// (loader's Argo CD follower) reports them. An error says why Argo CD
// would fail the source or why contourc cannot render it as Argo CD would.
//
// Argo CD renders crds/ (it passes --include-crds unless helm.skipCrds),
// and passes helm.apiVersions, helm.kubeVersion, helm.skipTests and
// helm.skipSchemaValidation as the flags of those names.
func HelmOptions(app *Application, i int, appDir, repoRoot string, refs Refs) (opts helmchart.Options, warnings []string, err error) {
	src := app.AllSources()[i]
	env := BuildEnv(app, i, repoRoot)
	opts.ReleaseName = app.Metadata.Name
	opts.Namespace = app.Spec.Destination.Namespace
	opts.IncludeCRDs = true
	h := src.Helm
	if h == nil {
		return opts, nil, nil
	}
	if h.ReleaseName != "" {
		opts.ReleaseName = h.ReleaseName
	}
	if h.Namespace != "" {
		opts.Namespace = h.Namespace
	}
	if opts.KubeVersion, err = kubeVersion(h.KubeVersion); err != nil {
		return opts, nil, err
	}
	opts.APIVersions = h.APIVersions
	opts.IncludeCRDs = !h.SkipCrds
	opts.SkipTests = h.SkipTests
	opts.SkipSchemaValidation = h.SkipSchemaValidation
	if opts.ValueFiles, err = valueFiles(h, appDir, repoRoot, refs, env); err != nil {
		return opts, nil, err
	}
	if opts.Values, err = inlineValues(h); err != nil {
		return opts, nil, err
	}
	opts.Set, opts.SetString = setParameters(h.Parameters, env)
	if opts.SetFile, err = fileParameters(h.FileParameters, appDir, repoRoot, refs, env); err != nil {
		return opts, nil, err
	}
	return opts, nil, nil
}

// kubeVersion is helm.kubeVersion as Argo CD passes it to --kube-version:
// read as a generic version ("v1.29.3+k3s1" is 1.29.3), an error when it
// is none.
func kubeVersion(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	parsed, err := version.ParseGeneric(v)
	if err != nil {
		return "", fmt.Errorf("could not parse kubernetes version %s: %w", v, err)
	}
	return parsed.String(), nil
}

// fileParameters are helm.fileParameters as --set-file arguments
// ("name=path"): each path resolved as a values file is (from the chart's
// directory, from the repository root when written /like/this, from a ref
// source's checkout when written $ref/like/this), by name, a later one
// of a name replacing an earlier one, sorted by name, with commas
// escaped. Whether the file exists is helm's to say, as in Argo CD.
func fileParameters(params []HelmParameter, appDir, repoRoot string, refs Refs, env Env) ([]string, error) {
	byName := map[string]string{}
	for _, p := range params {
		path, err := resolveValueFile(p.Path, appDir, repoRoot, refs, env)
		if err != nil {
			return nil, fmt.Errorf("helm.fileParameters %s: %w", p.Name, err)
		}
		byName[p.Name] = path
	}
	var out []string
	for _, name := range sortedKeys(byName) {
		out = append(out, name+"="+escapeSetValue(byName[name]))
	}
	return out, nil
}

// inlineValues are the values of valuesObject, or of the values string
// when there is no valuesObject, read as Helm reads a values file.
func inlineValues(h *Helm) (map[string]any, error) {
	text := []byte(h.Values)
	field := "helm.values"
	if len(h.ValuesObject) > 0 && string(h.ValuesObject) != "null" {
		text, field = h.ValuesObject, "helm.valuesObject"
	}
	if len(strings.TrimSpace(string(text))) == 0 {
		return nil, nil
	}
	var values map[string]any
	if err := yaml.Unmarshal(text, &values); err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return values, nil
}

// setParameters are the parameters as --set and --set-string arguments:
// by name, a later parameter of a name replacing an earlier one (Argo CD
// keeps them in a map), sorted so that the order is the same every run.
func setParameters(params []HelmParameter, env Env) (set, setString []string) {
	plain, forced := map[string]string{}, map[string]string{}
	for _, p := range params {
		if p.ForceString {
			forced[p.Name] = p.Value
		} else {
			plain[p.Name] = p.Value
		}
	}
	args := func(m map[string]string) []string {
		var out []string
		for _, name := range sortedKeys(m) {
			out = append(out, name+"="+escapeSetValue(env.Expand(m[name])))
		}
		return out
	}
	return args(plain), args(forced)
}

// escapeSetValue escapes the commas of a --set value that Helm would
// otherwise read as separating assignments, as Argo CD does: not in a
// {a,b} list, nor when already escaped.
func escapeSetValue(v string) string {
	if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
		return v
	}
	var b strings.Builder
	var prev rune
	for _, r := range v {
		if r == ',' && prev != '\\' {
			b.WriteString(`\,`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// valueFiles resolves helm.valueFiles to files of the checkout, in order,
// each once: a glob expands to its matches in lexical order (leaving out
// those listed on their own, which keep their own place); a missing file
// or a glob matching none is an error unless ignoreMissingValueFiles.
func valueFiles(h *Helm, appDir, repoRoot string, refs Refs, env Env) ([]string, error) {
	resolved := make([]string, len(h.ValueFiles))
	explicit := map[string]bool{}
	for i, raw := range h.ValueFiles {
		p, err := resolveValueFile(raw, appDir, repoRoot, refs, env)
		if err != nil {
			return nil, err
		}
		resolved[i] = p
		if !isGlob(p) {
			explicit[p] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for i, p := range resolved {
		raw := h.ValueFiles[i]
		if isGlob(p) {
			matches, err := globValueFiles(raw, p)
			if err != nil {
				return nil, err
			}
			if len(matches) == 0 && !h.IgnoreMissingValueFiles {
				return nil, fmt.Errorf("values file glob %q matched no files", raw)
			}
			for _, m := range matches {
				if !explicit[m] {
					add(m)
				}
			}
			continue
		}
		if !fileExists(p) {
			if h.IgnoreMissingValueFiles {
				continue
			}
			return nil, fmt.Errorf("values file %q does not exist", raw)
		}
		add(p)
	}
	return out, nil
}

// isGlob is Argo CD's test of a values file that is a pattern.
func isGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// globValueFiles expands a values file pattern. Argo CD expands `**`
// across directories (doublestar); filepath.Glob does not, so such a
// pattern is refused rather than expanded differently.
func globValueFiles(raw, pattern string) ([]string, error) {
	if strings.Contains(pattern, "**") {
		return nil, fmt.Errorf("values file glob %q: ** is not supported", raw)
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("error expanding glob pattern %q: %w", raw, err)
	}
	sort.Strings(matches)
	return matches, nil
}

// resolveValueFile is a valueFiles entry as a path of the checkout:
// $ref/path in the ref source's checkout, /path from the repository root,
// path from the chart's directory; a URL is refused (contourc fetches
// nothing), and so is a path out of the repository, as Argo CD refuses
// it.
func resolveValueFile(raw, appDir, repoRoot string, refs Refs, env Env) (string, error) {
	if strings.HasPrefix(raw, "$") {
		name, rest, _ := strings.Cut(raw, "/")
		if ref, ok := refs[name]; ok {
			if ref.Root == "" {
				return "", fmt.Errorf("values file %q is in %s (source ref %q), not this repository", raw, ref.RepoURL, strings.TrimPrefix(name, "$"))
			}
			return resolveIn(ref.Root, ref.Root, env.Expand("/"+rest), raw)
		}
	}
	v := env.Expand(raw)
	if u, err := url.Parse(v); err == nil && u.Scheme != "" {
		return "", fmt.Errorf("values file %q is remote; contourc fetches nothing", raw)
	}
	return resolveIn(appDir, repoRoot, v, raw)
}

// resolveIn resolves a path from dir, or from root when absolute, and
// keeps it in root.
func resolveIn(dir, root, p, raw string) (string, error) {
	if filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	} else {
		p = filepath.Join(dir, p)
	}
	if target, err := filepath.EvalSymlinks(p); err == nil {
		p = target
	}
	realRoot := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		realRoot = r
	}
	if p == realRoot || p == root || (!inside(p, realRoot) && !inside(p, root)) {
		return "", fmt.Errorf("file '%s' resolved to outside repository root", raw)
	}
	return p, nil
}
