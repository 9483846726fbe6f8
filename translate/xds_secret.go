package translate

import (
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

// secrets returns the SDS secrets of the valid secure virtual hosts, once
// per name, ordered by name.
func secrets(d *DAG) []*tlsv3.Secret {
	seen := map[string]bool{}
	var out []*tlsv3.Secret
	for _, l := range d.sortedListeners() {
		for _, svh := range l.secureVirtualHosts() {
			if svh.Secret == nil {
				continue // TLS passthrough
			}
			name := secretName(svh.Secret)
			if !seen[name] {
				seen[name] = true
				out = append(out, tlsCertificateSecret(name, svh.Secret.Cert, svh.Secret.Key))
			}
		}
	}
	sortByName(out, func(s *tlsv3.Secret) string { return s.Name })
	return out
}
