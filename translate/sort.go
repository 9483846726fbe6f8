package translate

import "sort"

// sortByName sorts resources by the name key returns; Contour's caches hand
// out every resource list sorted this way.
func sortByName[T any](items []T, key func(T) string) {
	sort.SliceStable(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
}
