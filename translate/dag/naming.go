package dag

import (
	"crypto/sha1" //nolint:gosec // a name, not a security boundary: Contour's names use SHA-1
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Contour's naming rules for Envoy resources. Names must match Contour's
// byte for byte so that configs can move between Contour and contourc.

// maxNameLength is the length Contour keeps cluster, secret and virtual
// host names strictly below.
const maxNameLength = 60

// hashname joins parts with "/" and, when the result is not shorter than
// limit, truncates parts from the last one backwards, replacing each one's
// tail with a short hash of the whole original name; if even that is too
// long, the name becomes the hash itself.
func hashname(limit int, parts ...string) string {
	name := strings.Join(parts, "/")
	if len(name) < limit {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	hash := hex.EncodeToString(sum[:])
	short := hash[:6]
	parts = append([]string(nil), parts...)
	for n := len(parts) - 1; n >= 0; n-- {
		parts[n] = truncateWithSuffix(limit/len(parts), parts[n], short)
		if name = strings.Join(parts, "/"); len(name) < limit {
			return name
		}
	}
	return hash[:min(len(hash), limit)]
}

func truncateWithSuffix(limit int, s, suffix string) string {
	switch {
	case limit >= len(s):
		return s
	case limit <= len(suffix):
		return suffix[:limit]
	default:
		return s[:limit-len(suffix)-1] + "-" + suffix
	}
}

// ShortSHA1 is the first 10 hex digits of the SHA-1 of s.
func ShortSHA1(s []byte) string {
	sum := sha1.Sum(s) //nolint:gosec
	return hex.EncodeToString(sum[:5])
}

// ClusterName is <ns>/<svc>/<port>/<hash of the settings that make the
// cluster distinct>, shortened by hashname.
func ClusterName(c *Cluster) string {
	if c.FrozenName != "" {
		return c.FrozenName
	}
	svc := c.Upstream
	sum := noSettingsSHA1
	if key := clusterKey(c); key != "" {
		sum = ShortSHA1([]byte(key))
	}
	return hashname(maxNameLength, svc.Namespace, svc.Name, strconv.Itoa(int(svc.Port.Port)), sum)
}

// noSettingsSHA1 is the hash in the name of a cluster without settings of
// its own (an empty clusterKey), most clusters: worked out once rather
// than for each of the 25,000 clusters of 5,000 HTTPRoutes.
var noSettingsSHA1 = ShortSHA1(nil)

// clusterKey is what makes two clusters of one Service port distinct, in
// the order Contour concatenates it.
func clusterKey(c *Cluster) string {
	key := c.LoadBalancerPolicy
	if hc := c.HealthCheck; hc != nil {
		if hc.Timeout > 0 {
			key += hc.Timeout.String()
		}
		if hc.Interval > 0 {
			key += hc.Interval.String()
		}
		if hc.UnhealthyThreshold > 0 {
			key += strconv.Itoa(int(hc.UnhealthyThreshold))
		}
		if hc.HealthyThreshold > 0 {
			key += strconv.Itoa(int(hc.HealthyThreshold))
		}
		key += hc.Path
	}
	if v := c.Validation; v != nil {
		key += v.CAName
		if len(v.SubjectNames) > 0 {
			key += v.SubjectNames[0]
		}
	}
	key += c.Protocol + c.SNI
	if t := c.IdleConnectionTimeout; t.Set {
		key += t.Duration.String()
	}
	if s := c.SlowStart; s != nil {
		key += fmt.Sprintf("%s%f%d", s.Window, s.Aggression, s.MinWeightPercent)
	}
	return key
}

// AltStatName is <ns>_<svc>_<port>.
func AltStatName(svc *Service) string {
	return svc.Namespace + "_" + svc.Name + "_" + strconv.Itoa(int(svc.Port.Port))
}

// EndpointsName is the EDS name of a service port: <ns>/<svc>/<port name>,
// or <ns>/<svc> when the port has no name. It is never shortened.
func EndpointsName(svc *Service) string {
	if svc.Port.Name == "" {
		return svc.Namespace + "/" + svc.Name
	}
	return svc.Namespace + "/" + svc.Name + "/" + svc.Port.Name
}

// SecretName is <ns>/<name>/<hash of the certificate>, shortened.
func SecretName(s *Secret) string {
	if s.name != "" {
		return s.name
	}
	return hashname(maxNameLength, s.Namespace, s.Name, ShortSHA1(s.Cert))
}

// VirtualHostName is the Envoy virtual host name for a host.
func VirtualHostName(host string) string { return hashname(maxNameLength, host) }
