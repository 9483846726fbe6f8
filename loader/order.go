package loader

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// objectKey identifies an object as the API server does: two objects with
// the same key cannot both exist.
type objectKey struct {
	kind, namespace, name string
}

func keyOf(o Object) objectKey {
	return objectKey{o.Kind, o.Obj.GetNamespace(), o.Obj.GetName()}
}

// findDuplicates reports every object that has the same kind, namespace and
// name as an earlier one. In a cluster the second `kubectl apply` would
// silently replace the first; offline, which one wins would depend on file
// order, so it is an error.
//
// The first GitOps entry point defined twice (the same Flux Kustomization
// in clusters/prod and clusters/staging, at the root of a repository of
// several clusters) says what to do about it: each cluster's folder is
// checked on its own.
func findDuplicates(objs []Object) []error {
	first := make(map[objectKey]Source, len(objs))
	var errs []error
	hinted := false
	for _, o := range objs {
		k := keyOf(o)
		if prev, ok := first[k]; ok {
			msg := fmt.Sprintf("defined more than once: also at %s", prev)
			if !hinted && IsGitOps(o) {
				msg += "; the entry points of two clusters, perhaps: give contourc one cluster's folder as PATH (or as paths in .contourc.yaml)"
				hinted = true
			}
			errs = append(errs, &Error{
				Source: o.Source, Kind: k.kind, Namespace: k.namespace, Name: k.name,
				Msg: msg,
			})
			continue
		}
		first[k] = o.Source
	}
	return errs
}

// sortObjects orders objects by kind, namespace and name: the order then
// depends only on what the inputs say, not on file names or the order of
// documents. It reports whether two objects have the same key, which are
// then neighbours (see findDuplicates).
func sortObjects(objs []Object) (dup bool) {
	// Keys are read once, not at each comparison: for 20,000 objects
	// that was a million interface calls.
	return copyObjects(objs, sortedKeyed(objs))
}

// copyObjects copies the objects of keyed, sorted, into objs, and reports
// whether two neighbours have the same key.
func copyObjects(objs []Object, keyed []keyedObject) (dup bool) {
	for i, k := range keyed {
		objs[i] = k.obj
		if i > 0 && k.key == keyed[i-1].key {
			dup = true
		}
	}
	return dup
}

// Compare orders objects as Load returns them: by kind, namespace and
// name; 0 means the same key, which Load never returns twice.
func Compare(a, b Object) int { return compareKeys(keyOf(a), keyOf(b)) }

// compareKeys orders keys by kind, namespace and name.
func compareKeys(a, b objectKey) int {
	return cmp.Or(
		strings.Compare(a.kind, b.kind),
		strings.Compare(a.namespace, b.namespace),
		strings.Compare(a.name, b.name))
}

// keyedObject is an object with its key, read once.
type keyedObject struct {
	key objectKey
	obj Object
}

// sortedKeyed returns objs with their keys, ordered as sortObjects orders.
func sortedKeyed(objs []Object) []keyedObject {
	out := make([]keyedObject, len(objs))
	for i, o := range objs {
		out[i] = keyedObject{keyOf(o), o}
	}
	slices.SortFunc(out, func(a, b keyedObject) int { return compareKeys(a.key, b.key) })
	return out
}

// mergeSorted merges runs, each ordered as sortObjects orders, into one
// such order. For serve, whose files keep their objects sorted in the
// decode cache, that replaces sorting every object at every reload (33 ms
// at 20,000).
//
// Runs apart from the others (a file per kind, as many repositories and
// generated corpora are laid out) are laid end to end, not merged: no
// intermediate runs to allocate (8 MB a reload at 5,000 HTTPProxies), and
// no keys compared. Only runs that overlap are merged, pairwise: a file of
// one HTTPProxy among a file of 5,000 costs a merge of those two, not of
// all 20,000 objects in three rounds (7 ms).
func mergeSorted(runs [][]keyedObject) (objs []Object, dup bool) {
	groups := overlapping(runs)
	merged := make([][]keyedObject, len(groups))
	n := 0
	for i, group := range groups {
		merged[i] = mergeAll(group)
		n += len(merged[i])
	}
	objs = make([]Object, n)
	at := 0
	for _, run := range merged {
		dup = copyObjects(objs[at:at+len(run)], run) || dup
		at += len(run)
	}
	return objs, dup
}

// mergeAll merges runs, neighbours pairwise until one is left.
func mergeAll(runs [][]keyedObject) []keyedObject {
	for len(runs) > 1 {
		next := runs[:0:0]
		for i := 0; i < len(runs); i += 2 {
			if i+1 == len(runs) {
				next = append(next, runs[i])
				continue
			}
			next = append(next, mergeTwo(runs[i], runs[i+1]))
		}
		runs = next
	}
	return runs[0]
}

// overlapping groups the non-empty runs, ordered by their first keys, so
// that each group's keys all come before the next group's: a run joins
// the group before it when it starts at or before that group's last key.
func overlapping(runs [][]keyedObject) [][][]keyedObject {
	sorted := make([][]keyedObject, 0, len(runs))
	for _, run := range runs {
		if len(run) > 0 {
			sorted = append(sorted, run)
		}
	}
	slices.SortFunc(sorted, func(a, b []keyedObject) int { return compareKeys(a[0].key, b[0].key) })
	var groups [][][]keyedObject
	var last objectKey // the greatest key of the last group
	for _, run := range sorted {
		end := run[len(run)-1].key
		if len(groups) > 0 && compareKeys(run[0].key, last) <= 0 {
			groups[len(groups)-1] = append(groups[len(groups)-1], run)
			if compareKeys(end, last) > 0 {
				last = end
			}
			continue
		}
		groups = append(groups, [][]keyedObject{run})
		last = end
	}
	return groups
}

// mergeTwo merges two sorted runs, taking from each, in one copy, the
// stretch that comes before the other's head: files often hold objects of
// one kind, or of one namespace, so the stretches are long.
func mergeTwo(a, b []keyedObject) []keyedObject {
	out := make([]keyedObject, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		head := b[0].key
		n := stretch(a, func(k objectKey) bool { return compareKeys(k, head) <= 0 })
		out, a = append(out, a[:n]...), a[n:]
		if len(a) == 0 {
			break
		}
		head = a[0].key
		n = stretch(b, func(k objectKey) bool { return compareKeys(k, head) < 0 })
		out, b = append(out, b[:n]...), b[n:]
	}
	return append(append(out, a...), b...)
}

// stretch is how many of run's first objects satisfy before, which holds
// for a prefix of run: found by doubling then halving, so that a short
// stretch costs little.
func stretch(run []keyedObject, before func(objectKey) bool) int {
	end := 1
	for end <= len(run) && before(run[end-1].key) {
		end *= 2
	}
	start := end / 2 // run[:start] are before
	end = min(end, len(run))
	return start + sort.Search(end-start, func(i int) bool { return !before(run[start+i].key) })
}
