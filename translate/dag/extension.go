package dag

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// JWTProvider verifies JWTs on a secure virtual host's requests. Exactly
// one of RemoteJWKS and LocalJWKS is set.
type JWTProvider struct {
	Name       string
	Issuer     string
	Audiences  []string
	ForwardJWT bool
	RemoteJWKS *RemoteJWKS
	// LocalJWKS is the JWKS document inlined from a Secret.
	LocalJWKS []byte
}

// RemoteJWKS is a JWKS fetched over HTTP(S) from a DNS-named upstream.
type RemoteJWKS struct {
	URI     string
	Timeout time.Duration
	// CacheDuration is nil for Envoy's default (5m).
	CacheDuration *time.Duration
	Cluster       *DNSNameCluster
}

// DNSNameCluster is an upstream Envoy finds by resolving a host name.
type DNSNameCluster struct {
	Address string // the host name
	Scheme  string // "http" or "https"
	Port    int
	// DNSLookupFamily is auto, v4, v6 or all.
	DNSLookupFamily string
	// Validation, when set, verifies the upstream's certificate (https).
	Validation *UpstreamValidation
}

// ClusterName is Contour v1.33.8's DNSNameClusterName:
// "dnsname/<scheme>/<host>/<port>/<hash>", the hash the first 10 bytes of
// the SHA-256 of every setting that makes the cluster what it is, each
// value quoted so that their boundaries stay apart ("tenant-a"+"idp-ca"
// is not "tenant-ai"+"dp-ca"). Clusters of one name are served once, so
// two HTTPProxies in different namespaces asking for one host with
// another port, DNS family, CA or subject names get a cluster each rather
// than the first one's; the hash is long enough that no one can pick
// subject names to take another namespace's cluster over.
func (c *DNSNameCluster) ClusterName() string {
	port := strconv.Itoa(c.Port)
	key := strconv.Quote(c.Scheme) + strconv.Quote(c.Address) + strconv.Quote(port) + strconv.Quote(c.DNSLookupFamily)
	if v := c.Validation; v != nil {
		key += strconv.Quote(v.CANamespace) + strconv.Quote(v.CAName)
		for _, sn := range v.SubjectNames {
			key += strconv.Quote(sn)
		}
	}
	sum := sha256.Sum256([]byte(key))
	return "dnsname/" + c.Scheme + "/" + c.Address + "/" + port + "/" + hex.EncodeToString(sum[:10])
}

// ExternalAuthorization is a secure virtual host's authorization server.
type ExternalAuthorization struct {
	Extension       *ExtensionCluster
	HTTPService     bool // else gRPC
	FailOpen        bool
	ResponseTimeout Timeout
	PathPrefix      string
	// AllowedAuthorizationHeaders and AllowedUpstreamHeaders are header
	// name matchers of the HTTP service.
	AllowedAuthorizationHeaders, AllowedUpstreamHeaders []HeaderNameMatch
	WithRequestBody                                     *RequestBodyBuffer
}

// ExtensionCluster is an ExtensionService's cluster.
type ExtensionCluster struct {
	Namespace, Name    string
	Protocol           string // h2 (TLS), h2c or http/1.1
	SNI                string
	LoadBalancerPolicy string
	Validation         *UpstreamValidation
	IdleConnection     Timeout
	// ResponseTimeout is what the filters calling the extension use.
	ResponseTimeout Timeout
	CircuitBreakers CircuitBreakers
	Targets         []ExtensionTarget
	// ClientCertificate is the configuration's Envoy client certificate.
	ClientCertificate *Secret
}

// ExtensionTarget is one Service port behind an extension.
type ExtensionTarget struct {
	Service *Service
	Weight  uint32
}

// ClusterName is "extension/<ns>/<name>", also its EDS name.
func (e *ExtensionCluster) ClusterName() string {
	return "extension/" + e.Namespace + "/" + e.Name
}
