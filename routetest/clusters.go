package routetest

import (
	"strconv"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
)

// ClusterRef is an Envoy cluster and what it stands for in the manifests.
type ClusterRef struct {
	Name string `json:"name"`
	// Service is the Service port behind the cluster.
	Service *ServiceRef `json:"service,omitempty"`
	// ExtensionService names the ExtensionService behind an extension
	// cluster (extension/<ns>/<name>).
	ExtensionService *ObjectRef `json:"extensionService,omitempty"`
	// Missing is set when no cluster has this name: Envoy answers 503.
	Missing bool `json:"missing,omitempty"`
}

// ServiceRef is one port of a Service.
type ServiceRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Port      int    `json:"port"`
	PortName  string `json:"portName,omitempty"`
}

func (s ServiceRef) String() string {
	str := s.Namespace + "/" + s.Name + ":" + strconv.Itoa(s.Port)
	if s.PortName != "" {
		str += " (" + s.PortName + ")"
	}
	return str
}

// ObjectRef names a namespaced object.
type ObjectRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (r ClusterRef) String() string {
	switch {
	case r.Missing:
		return r.Name + " (no such cluster: 503)"
	case r.Service != nil:
		return r.Name + " (Service " + r.Service.String() + ")"
	case r.ExtensionService != nil:
		return r.Name + " (ExtensionService " + r.ExtensionService.Namespace + "/" + r.ExtensionService.Name + ")"
	}
	return r.Name
}

// cluster describes the cluster called name.
func (c *Config) cluster(name string) ClusterRef {
	ref := ClusterRef{Name: name}
	cl, ok := c.clusters[name]
	if !ok {
		ref.Missing = true
		return ref
	}
	ref.Service, ref.ExtensionService = clusterTarget(cl)
	return ref
}

// clusterTarget works out what a cluster of Contour's stands for. Cluster
// names are shortened with a hash when long, so they are not parsed; the
// EDS service name (<ns>/<svc>[/<port name>], or extension/<ns>/<name>)
// names the Service and the alt_stat_name (<ns>_<svc>_<port>) adds the
// port number. Kubernetes names cannot contain "_", so once the namespace
// and name are known the port is what follows them.
func clusterTarget(cl *clusterv3.Cluster) (*ServiceRef, *ObjectRef) {
	eds := cl.GetEdsClusterConfig().GetServiceName()
	if eds == "" {
		// STRICT_DNS clusters (--upstream-dns) carry the same name in
		// their inline load assignment.
		eds = cl.GetLoadAssignment().GetClusterName()
	}
	parts := strings.Split(eds, "/")
	if len(parts) == 3 && parts[0] == "extension" {
		return nil, &ObjectRef{Namespace: parts[1], Name: parts[2]}
	}
	alt := cl.GetAltStatName()
	if len(parts) == 2 || len(parts) == 3 {
		ns, name := parts[0], parts[1]
		svc := &ServiceRef{Namespace: ns, Name: name}
		if len(parts) == 3 {
			svc.PortName = parts[2]
		}
		if rest, ok := strings.CutPrefix(alt, ns+"_"+name+"_"); ok {
			svc.Port, _ = strconv.Atoi(rest)
		}
		return svc, nil
	}
	// No EDS name: fall back on alt_stat_name alone.
	if p := strings.Split(alt, "_"); len(p) == 3 {
		if port, err := strconv.Atoi(p[2]); err == nil {
			return &ServiceRef{Namespace: p[0], Name: p[1], Port: port}, nil
		}
	}
	return nil, nil
}
