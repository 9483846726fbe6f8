package kustomize

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// LeftOut is an entry of a kustomization that a build left out rather
// than fetch: a remote resource or a Helm chart.
type LeftOut struct {
	File  string // the kustomization file, absolute
	Field string // resources, components, helmCharts...
	Entry string // the entry as written (a chart's name)
	Why   string
}

func (l LeftOut) String() string {
	return fmt.Sprintf("left out %s entry %q: %s", l.Field, l.Entry, l.Why)
}

// pathFields are the kustomization fields whose entries name files,
// directories or repositories that kustomize reads; bases is the
// deprecated form of resources.
var pathFields = []string{"resources", "bases", "components", "generators", "transformers", "validators"}

// chartFields are the fields that make kustomize run helm.
var chartFields = []string{"helmCharts", "helmChartInflationGenerator"}

// Reasons an entry is left out, as the warnings word them.
const (
	whyRemote = "remote; contourc fetches nothing unless --kustomize-remote is given"
	whyChart  = "Helm charts are not rendered"
)

// rewriter edits each kustomization file as kustomize reads it: when
// tracking, the build root's asks for origin annotations (which say, for
// every object, the file it came from), and remote
// entries and Helm charts are left out so that nothing is fetched and
// no helm is run.
type rewriter struct {
	fSys   filesys.FileSystem
	root   string // the build's directory, absolute
	remote bool   // fetch remote entries (--kustomize-remote)
	track  bool   // ask for origin annotations (origins.go)
	// fetched is set when, with remote set, a kustomization has remote
	// entries: their files are read from a temporary clone, which only
	// kustomize's origin tracking names as the repository they are from.
	fetched bool

	mu      sync.Mutex
	leftOut []LeftOut
	seen    map[string]bool // kustomization files already rewritten
}

func (w *rewriter) rewrite(path string, data []byte) []byte {
	node, err := kyaml.Parse(string(data))
	if err != nil || node.YNode().Kind != kyaml.MappingNode {
		return data // kustomize reports what is wrong with it
	}
	changed := false
	if w.track && filepath.Dir(path) == w.root {
		changed = askOrigins(node)
	}
	isRemote := func(entry string) bool { return w.isRemote(filepath.Dir(path), entry) }
	if !w.remote {
		left := leaveOutRemote(node, path, isRemote)
		w.note(path, left)
		changed = changed || len(left) > 0
	} else if hasRemote(node, isRemote) {
		w.mu.Lock()
		w.fetched = true
		w.mu.Unlock()
	}
	if !changed {
		return data
	}
	out, err := node.String()
	if err != nil {
		return data
	}
	return []byte(out)
}

// note records what was left out of a kustomization file, once however
// often a build reads it.
func (w *rewriter) note(path string, left []LeftOut) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[path] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[path] = true
	w.leftOut = append(w.leftOut, left...)
}

// askOrigins adds originAnnotations to the kustomization's buildMetadata;
// kustomize hands the root's buildMetadata down to every kustomization
// the build goes through.
func askOrigins(node *kyaml.RNode) bool {
	seq, err := node.Pipe(kyaml.LookupCreate(kyaml.SequenceNode, "buildMetadata"))
	if err != nil || seq == nil || seq.YNode().Kind != kyaml.SequenceNode {
		return false
	}
	for _, e := range seq.YNode().Content {
		if e.Value == types.OriginAnnotations {
			return false
		}
	}
	seq.YNode().Style = kyaml.FlowStyle
	seq.YNode().Content = append(seq.YNode().Content, kyaml.NewStringRNode(types.OriginAnnotations).YNode())
	return true
}

// leaveOutRemote removes the remote entries and Helm charts of a
// kustomization and says what it removed.
func leaveOutRemote(node *kyaml.RNode, file string, isRemote func(string) bool) []LeftOut {
	var left []LeftOut
	for _, field := range pathFields {
		seq := node.Field(field)
		if seq == nil || seq.Value.YNode().Kind != kyaml.SequenceNode {
			continue
		}
		y := seq.Value.YNode()
		kept := y.Content[:0]
		for _, e := range y.Content {
			if e.Kind == kyaml.ScalarNode && isRemote(e.Value) {
				left = append(left, LeftOut{File: file, Field: field, Entry: e.Value, Why: whyRemote})
				continue
			}
			kept = append(kept, e)
		}
		y.Content = kept
	}
	for _, field := range chartFields {
		f := node.Field(field)
		if f == nil {
			continue
		}
		for _, name := range chartNames(f.Value) {
			left = append(left, LeftOut{File: file, Field: field, Entry: name, Why: whyChart})
		}
		_ = node.PipeE(kyaml.Clear(field))
	}
	return left
}

// hasRemote reports whether a kustomization has remote path entries.
func hasRemote(node *kyaml.RNode, isRemote func(string) bool) bool {
	for _, field := range pathFields {
		seq := node.Field(field)
		if seq == nil || seq.Value.YNode().Kind != kyaml.SequenceNode {
			continue
		}
		for _, e := range seq.Value.YNode().Content {
			if e.Kind == kyaml.ScalarNode && isRemote(e.Value) {
				return true
			}
		}
	}
	return false
}

// chartNames are the names of the charts of a helmCharts list (or of the
// deprecated helmChartInflationGenerator), "?" for one without.
func chartNames(list *kyaml.RNode) []string {
	elems, err := list.Elements()
	if err != nil {
		return []string{"?"}
	}
	var names []string
	for _, e := range elems {
		name := "?"
		for _, key := range []string{"name", "chartName"} {
			if v := e.Field(key); v != nil && v.Value.YNode().Value != "" {
				name = v.Value.YNode().Value
				break
			}
		}
		names = append(names, name)
	}
	return names
}

// isRemote reports whether a path entry of the kustomization in dir names
// something kustomize would fetch: a URL, or a repository written as
// host/org/repo (github.com/org/repo//dir?ref=v1), git@host:repo. An
// entry that exists on disk is local whatever it looks like; inline
// generator and transformer configurations (several lines) are local.
func (w *rewriter) isRemote(dir, entry string) bool {
	if entry == "" || strings.Contains(entry, "\n") || w.fSys.Exists(filepath.Join(dir, entry)) {
		return false
	}
	return looksRemote(entry)
}

// looksRemote is the shape of remote entries kustomize accepts.
func looksRemote(entry string) bool {
	if strings.HasPrefix(entry, "git@") || strings.Contains(entry, "?ref=") || strings.Contains(entry, "?version=") {
		return true
	}
	if u, err := url.Parse(entry); err == nil && u.Scheme != "" && u.Host != "" {
		return true
	}
	// host/org/repo: a first element with a dot that is not a relative
	// path (".", "..", ".hidden").
	first, _, found := strings.Cut(entry, "/")
	return found && strings.Contains(first, ".") && !strings.HasPrefix(first, ".")
}
