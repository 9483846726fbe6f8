package kustomize

import (
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Result is one kustomization of a tree: its build, or why it has none.
type Result struct {
	// Dir is the directory as the caller gave it.
	Dir   string
	Build *Build
	Err   error
}

// Tree builds the kustomizations in dirs (directories a walk found
// holding a kustomization file) that no other one of them uses: a base
// or component that an overlay in the tree uses is built only through
// the overlay, as `kubectl apply -k overlay` would. The results are in
// the order of dirs.
//
// Which kustomization uses which is read first from their resources and
// components, so that a base is not built for nothing; what each build
// actually read then decides, so that a reference this misses (through
// generators or transformers) neither builds a kustomization twice nor
// leaves one out.
func Tree(fSys filesys.FileSystem, dirs []string, opts Options) []Result {
	abs := make([]string, len(dirs))
	index := map[string]int{}
	for i, d := range dirs {
		abs[i] = d
		if a, _, err := fSys.CleanedAbs(d); err == nil {
			abs[i] = a.String()
		}
		index[abs[i]] = i
	}
	used, components, serial := references(fSys, abs, index)
	results := make([]Result, len(dirs))
	var first []int
	for i := range dirs {
		// A Component is built only through the kustomizations that
		// use it; on its own kustomize cannot build it (its patches have
		// no targets).
		if !used[i] && !components[i] {
			first = append(first, i)
		}
	}
	build := func(todo []int) {
		forEach(todo, serial, func(i int) {
			b, err := Run(fSys, dirs[i], opts)
			results[i] = Result{Dir: dirs[i], Build: b, Err: err}
		})
	}
	build(first)
	// A kustomization the first round expected another to use but that
	// none read is built on its own after all.
	readBy := readKustomizations(results, index)
	var second []int
	for i := range dirs {
		if used[i] && !components[i] && len(readBy[i]) == 0 {
			second = append(second, i)
		}
	}
	build(second)
	readBy = readKustomizations(results, index)
	var out []Result
	for i, r := range results {
		if r.Dir == "" || builtThroughAnother(i, readBy[i], results) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// builtThroughAnother reports whether kustomization i was read by
// another build that succeeded, and so is built through it.
func builtThroughAnother(i int, readers []int, results []Result) bool {
	for _, j := range readers {
		if j != i && results[j].Err == nil {
			return true
		}
	}
	return false
}

// readKustomizations says, for each kustomization, which builds read its
// kustomization file (its own build included).
func readKustomizations(results []Result, index map[string]int) map[int][]int {
	readBy := map[int][]int{}
	for j, r := range results {
		if r.Build == nil {
			continue
		}
		for path := range r.Build.Read {
			if !IsKustomizationFile(filepath.Base(path)) {
				continue
			}
			if i, ok := index[filepath.Dir(path)]; ok && i != j {
				readBy[i] = append(readBy[i], j)
			}
		}
	}
	for _, js := range readBy {
		sort.Ints(js)
	}
	return readBy
}

// references reads each kustomization's resources, bases and components
// and reports which of dirs another one names, and which are Components.
// serial is set when one of
// them sets its own OpenAPI schema, which kustomize keeps in a global:
// those builds then run one at a time.
func references(fSys filesys.FileSystem, abs []string, index map[string]int) (used, components []bool, serial bool) {
	used = make([]bool, len(abs))
	components = make([]bool, len(abs))
	for i, dir := range abs {
		node := readKustomization(fSys, dir)
		if node == nil {
			continue
		}
		components[i] = node.GetKind() == types.ComponentKind
		if node.Field("openapi") != nil {
			serial = true
		}
		for _, field := range []string{"resources", "bases", "components"} {
			f := node.Field(field)
			if f == nil || f.Value.YNode().Kind != kyaml.SequenceNode {
				continue
			}
			for _, e := range f.Value.YNode().Content {
				target := filepath.Join(dir, e.Value)
				if a, _, err := fSys.CleanedAbs(target); err == nil {
					target = a.String()
				}
				if j, ok := index[target]; ok && j != i {
					used[j] = true
				}
			}
		}
	}
	return used, components, serial
}

// readKustomization parses the kustomization file in dir, nil when there
// is none or it is not YAML (its build will say so).
func readKustomization(fSys filesys.FileSystem, dir string) *kyaml.RNode {
	for _, name := range kustomizationFileNames() {
		data, err := fSys.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		node, err := kyaml.Parse(string(data))
		if err != nil || node.YNode().Kind != kyaml.MappingNode {
			return nil
		}
		return node
	}
	return nil
}

// forEach runs f for each of todo, on every CPU unless serial.
func forEach(todo []int, serial bool, f func(int)) {
	workers := runtime.GOMAXPROCS(0)
	if serial {
		workers = 1
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, len(todo)) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
}
