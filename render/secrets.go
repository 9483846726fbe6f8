package render

// The static_resources.secrets of a static bootstrap.

import (
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
)

// staticSecrets returns secrets, sorted by name: copies, unless shared.
// Listeners and clusters refer to them by name once their SDS config
// sources are gone (see staticSecretRef).
func staticSecrets(secrets []*tlsv3.Secret, shared bool) []*tlsv3.Secret {
	out := sortedByName(secrets, (*tlsv3.Secret).GetName)
	if !shared {
		for i, s := range out {
			out[i] = proto.Clone(s).(*tlsv3.Secret)
		}
	}
	return out
}
