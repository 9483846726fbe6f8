package argocd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// overrides.go: the parameter overrides a repository may keep beside a
// source (what `argocd app set` writes back to Git, and Argo CD Image
// Updater's write-back): .argocd-source.yaml, then
// .argocd-source-<app name>.yaml, in the source's directory, each merged
// into the source as a JSON merge patch (RFC 7386). As in Argo CD
// (reposerver: mergeSourceParameters), they change only the tool options:
// repoURL, path, targetRevision and chart stay the Application's.

// mergeOverrides merges the override files of dir into src.
func mergeOverrides(src *Source, dir, appName string) error {
	files := []string{filepath.Join(dir, ".argocd-source.yaml")}
	if appName != "" {
		files = append(files, filepath.Join(dir, ".argocd-source-"+appName+".yaml"))
	}
	merged := *src
	for _, f := range files {
		st, err := os.Stat(f)
		if os.IsNotExist(err) || (err == nil && st.IsDir()) {
			continue
		}
		if err != nil {
			return err
		}
		if merged, err = mergeOverrideFile(merged, f); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	merged.RepoURL, merged.Path, merged.TargetRevision, merged.Chart = src.RepoURL, src.Path, src.TargetRevision, src.Chart
	*src = merged
	return nil
}

func mergeOverrideFile(src Source, file string) (Source, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return src, err
	}
	var patch any
	if err := yaml.Unmarshal(data, &patch); err != nil {
		return src, err
	}
	doc, err := json.Marshal(src)
	if err != nil {
		return src, err
	}
	var target any
	if err := json.Unmarshal(doc, &target); err != nil {
		return src, err
	}
	out, err := json.Marshal(mergePatch(target, patch))
	if err != nil {
		return src, err
	}
	var merged Source
	if err := json.Unmarshal(out, &merged); err != nil {
		return src, err
	}
	return merged, nil
}

// mergePatch is RFC 7386's MergePatch(target, patch): objects are merged
// key by key, null removes a key, anything else replaces.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}
