package index

import (
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SortByName sorts resources by the name key returns; Contour's caches hand
// out every resource list sorted this way.
func SortByName[T any](items []T, key func(T) string) {
	sort.SliceStable(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
}

// sortByQualifiedName sorts objects by "namespace/name", Contour's order.
func sortByQualifiedName[T metav1.Object](objs []T) {
	sort.Slice(objs, func(i, j int) bool {
		return LessQualified(objs[i].GetNamespace(), objs[i].GetName(), objs[j].GetNamespace(), objs[j].GetName())
	})
}

// LessQualified reports whether ns1+"/"+name1 sorts before ns2+"/"+name2,
// without building the strings: status lists of thousands of objects are
// sorted this way, and building two strings per comparison was most of it.
func LessQualified(ns1, name1, ns2, name2 string) bool {
	return CompareQualified(ns1, name1, ns2, name2) < 0
}

// CompareQualified compares ns1+"/"+name1 with ns2+"/"+name2 as
// strings.Compare would. The joined strings first differ where the names
// do when the namespaces are equal, and where the namespaces do when
// neither is a prefix of the other, which strings.Compare finds at once;
// only the rest needs comparing byte by byte (compareJoined, which sorting
// 20,000 statuses spent 50 ms in).
func CompareQualified(ns1, name1, ns2, name2 string) int {
	if ns1 == ns2 {
		return strings.Compare(name1, name2)
	}
	if n := min(len(ns1), len(ns2)); ns1[:n] != ns2[:n] {
		return strings.Compare(ns1, ns2)
	}
	return compareJoined([3]string{ns1, "/", name1}, [3]string{ns2, "/", name2})
}

// compareJoined compares the concatenations of a's and b's pieces byte by
// byte, as strings.Compare would compare the joined strings.
func compareJoined(a, b [3]string) int {
	i, ai, j, bj := 0, 0, 0, 0 // piece and offset in it, for a and for b
	for {
		for i < len(a) && ai == len(a[i]) {
			i, ai = i+1, 0
		}
		for j < len(b) && bj == len(b[j]) {
			j, bj = j+1, 0
		}
		switch {
		case i == len(a) && j == len(b):
			return 0
		case i == len(a):
			return -1
		case j == len(b):
			return 1
		}
		if ca, cb := a[i][ai], b[j][bj]; ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		ai, bj = ai+1, bj+1
	}
}
