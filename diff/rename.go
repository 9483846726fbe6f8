package diff

import (
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/translate"
)

// Contour names clusters <ns>/<svc>/<port>/<hash of settings> and secrets
// <ns>/<name>/<hash of certificate>. Changing a cluster's load balancing
// policy or rotating a certificate therefore renames the resource, and
// every listener and route that refers to it changes too. Reported as is,
// one rotation would read as a secret removed, another added and a listener
// changed. Instead, a resource that disappears and one that appears with
// the same identity (same service port, same Secret) are paired as a rename,
// and the old side's references are rewritten to the new names before
// anything is compared, so the change shows up once, where it happened.

// renames maps old resource names to new ones.
type renames map[string]string

// findRenames pairs the names only the old side has with those only the new
// side has, when exactly one of each shares an identity.
func findRenames(oldNames, newNames []string, identity func(string) string) renames {
	inNew := map[string]bool{}
	for _, n := range newNames {
		inNew[n] = true
	}
	inOld := map[string]bool{}
	for _, n := range oldNames {
		inOld[n] = true
	}
	gone := map[string][]string{}
	came := map[string][]string{}
	for _, n := range oldNames {
		if !inNew[n] {
			gone[identity(n)] = append(gone[identity(n)], n)
		}
	}
	for _, n := range newNames {
		if !inOld[n] {
			came[identity(n)] = append(came[identity(n)], n)
		}
	}
	out := renames{}
	for id, olds := range gone {
		if news := came[id]; id != "" && len(olds) == 1 && len(news) == 1 {
			out[olds[0]] = news[0]
		}
	}
	return out
}

// withoutHash is a name without its last "/" segment, the hash Contour
// appends: the identity of a secret or cluster.
func withoutHash(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i <= 0 || strings.Count(name, "/") < 2 {
		return ""
	}
	return name[:i]
}

// resourceRenames finds the cluster and secret renames between two sides.
func resourceRenames(old, new *translate.Resources) renames {
	clusterID := map[string]string{}
	var oldClusters, newClusters []string
	for _, c := range old.Clusters {
		oldClusters = append(oldClusters, c.GetName())
		clusterID[c.GetName()] = clusterIdentity(c.GetName(), c.GetAltStatName())
	}
	for _, c := range new.Clusters {
		newClusters = append(newClusters, c.GetName())
		clusterID[c.GetName()] = clusterIdentity(c.GetName(), c.GetAltStatName())
	}
	out := findRenames(oldClusters, newClusters, func(n string) string { return clusterID[n] })

	var oldSecrets, newSecrets []string
	for _, s := range old.Secrets {
		oldSecrets = append(oldSecrets, s.GetName())
	}
	for _, s := range new.Secrets {
		newSecrets = append(newSecrets, s.GetName())
	}
	for o, n := range findRenames(oldSecrets, newSecrets, withoutHash) {
		out[o] = n
	}
	return out
}

// clusterIdentity is the service port a cluster belongs to: its
// alt_stat_name (<ns>_<svc>_<port>), which Contour does not hash, or else its
// name without the hash.
func clusterIdentity(name, altStatName string) string {
	if altStatName != "" {
		return altStatName
	}
	return withoutHash(name)
}

// apply rewrites every string field of every resource of r that holds an
// old name to the new name.
func (rn renames) apply(r *translate.Resources) {
	if len(rn) == 0 {
		return
	}
	forEachResource(r, func(m proto.Message) { walk(m.ProtoReflect(), rn.rewrite) })
}

func (rn renames) rewrite(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.StringKind || fd.IsMap() || !m.Has(fd) {
			continue
		}
		if fd.IsList() {
			list := m.Mutable(fd).List()
			for j := 0; j < list.Len(); j++ {
				if n, ok := rn[list.Get(j).String()]; ok {
					list.Set(j, protoreflect.ValueOfString(n))
				}
			}
			continue
		}
		if n, ok := rn[m.Get(fd).String()]; ok {
			m.Set(fd, protoreflect.ValueOfString(n))
		}
	}
}

// oldNames inverts rn: new name → old name.
func (rn renames) oldNames() map[string]string {
	out := make(map[string]string, len(rn))
	for o, n := range rn {
		out[n] = o
	}
	return out
}
