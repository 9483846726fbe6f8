package envoy

import (
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

// Secrets returns the SDS secrets of the valid secure virtual hosts, once
// per name, ordered by name.
func Secrets(d *dag.DAG, b *Reuse) []*tlsv3.Secret {
	seen := map[string]bool{}
	var out []*tlsv3.Secret
	add := func(sec *dag.Secret) {
		if sec == nil {
			return
		}
		if name := dag.SecretName(sec); !seen[name] {
			seen[name] = true
			out = append(out, b.secret(name, sec))
		}
	}
	for _, l := range d.SortedListeners() {
		for _, svh := range l.SecureVirtualHosts() {
			if svh.Secret == nil {
				continue // TLS passthrough
			}
			add(svh.Secret)
			add(svh.FallbackCertificate)
		}
	}
	// The Envoy client certificate, when a service cluster presents it
	// (not for extension clusters only, as in Contour).
	for _, c := range ReferencedClusters(d) {
		add(c.ClientCertificate)
	}
	index.SortByName(out, func(s *tlsv3.Secret) string { return s.Name })
	return out
}
