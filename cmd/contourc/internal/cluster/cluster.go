package cluster

// --assume-service and --cluster-context, and the objects they give.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/contourc/contourc/loader"
)

// clusterFlags are --assume-service and --cluster-context.
type Flags struct {
	assumeServices []string
	Contexts       []string
	// cache keeps the cluster context's objects from one load to the
	// next (serve loads it again at every reload), so that unchanged
	// files give the same objects, as the translation Memo wants.
	cache *loader.Cache
	// assumed are the assumed Services, made once for the same reason.
	assumed     []loader.Object
	assumedFrom []string
	// workloads are the context's Deployments, DaemonSets and
	// ContourDeployments, where its Contour instances are found.
	Workloads []loader.Object
}

func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.assumeServices, "assume-service", nil,
		"take the cluster to have the Service `NS/NAME:PORT[/PROTOCOL][,PORT[/PROTOCOL]...]`, one made by an operator or a chart\n"+
			"(PROTOCOL: tcp (default), tls, h2 or h2c, as Contour's upstream-protocol annotations; repeatable, a Service's ports adding up)")
	fs.StringArrayVar(&f.Contexts, "cluster-context", nil,
		"read objects that live in the cluster, not in the repository, from `PATH` (a directory or a kubectl get -o yaml dump):\n"+
			"used in translation, never reported; an object also in the input is the input's (repeatable)")
}

// assumedService is one Service of --assume-service: its ports, and those
// of each upstream protocol other than tcp.
type assumedService struct {
	namespace, name string
	ports           []int32
	protocols       map[string][]int32 // by annotation suffix: tls, h2, h2c
	flags           []string           // the values that named it
}

// upstreamProtocols are the upstream protocols of Contour's Service
// annotations, projectcontour.io/upstream-protocol.<protocol>.
var upstreamProtocols = []string{"tcp", "tls", "h2", "h2c"}

// parseAssumedServices reads the --assume-service values, a Service's
// entries adding up; malformed ones are usage errors.
func parseAssumedServices(values []string) ([]*assumedService, error) {
	byName := map[string]*assumedService{}
	var out []*assumedService
	for _, v := range values {
		ns, name, ports, err := splitAssumedService(v)
		if err != nil {
			return nil, fmt.Errorf("--assume-service %q: %v", v, err)
		}
		svc := byName[ns+"/"+name]
		if svc == nil {
			svc = &assumedService{namespace: ns, name: name, protocols: map[string][]int32{}}
			byName[ns+"/"+name] = svc
			out = append(out, svc)
		}
		svc.flags = append(svc.flags, v)
		for _, p := range ports {
			if err := svc.add(p); err != nil {
				return nil, fmt.Errorf("--assume-service %q: %v", v, err)
			}
		}
	}
	slices.SortFunc(out, func(a, b *assumedService) int {
		return strings.Compare(a.namespace+"/"+a.name, b.namespace+"/"+b.name)
	})
	return out, nil
}

// splitAssumedService splits "NS/NAME:PORT[/PROTOCOL],..." into its parts,
// checking the names as the API server checks a Service's.
func splitAssumedService(v string) (ns, name string, ports []string, err error) {
	ref, list, ok := strings.Cut(v, ":")
	ns, name, hasNS := strings.Cut(ref, "/")
	if !ok || !hasNS || ns == "" || name == "" || list == "" {
		return "", "", nil, fmt.Errorf("want NAMESPACE/NAME:PORT[/PROTOCOL][,PORT[/PROTOCOL]...]")
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return "", "", nil, fmt.Errorf("namespace %q: %s", ns, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		return "", "", nil, fmt.Errorf("name %q: %s", name, strings.Join(errs, "; "))
	}
	return ns, name, strings.Split(list, ","), nil
}

// add adds one "PORT[/PROTOCOL]"; the same port twice must say the same.
func (s *assumedService) add(entry string) error {
	num, protocol, hasProtocol := strings.Cut(entry, "/")
	port, err := strconv.ParseInt(num, 10, 32)
	if err != nil || port < 1 || port > 65535 {
		return fmt.Errorf("port %q: want a number from 1 to 65535", num)
	}
	if !hasProtocol {
		protocol = "tcp"
	}
	if !slices.Contains(upstreamProtocols, protocol) {
		return fmt.Errorf("port %d: protocol %q: want one of %s", port, protocol, strings.Join(upstreamProtocols, ", "))
	}
	if was := s.protocolOf(int32(port)); was != "" {
		if was != protocol {
			return fmt.Errorf("port %d given as %s and as %s", port, was, protocol)
		}
		return nil
	}
	s.ports = append(s.ports, int32(port))
	if protocol != "tcp" {
		s.protocols[protocol] = append(s.protocols[protocol], int32(port))
	}
	return nil
}

func (s *assumedService) protocolOf(port int32) string {
	if !slices.Contains(s.ports, port) {
		return ""
	}
	for p, ports := range s.protocols {
		if slices.Contains(ports, port) {
			return p
		}
	}
	return "tcp"
}

// manifest is the Service as YAML, for the loader to admit: a ClusterIP
// Service with the ports (named when there are several, as the API server
// requires) and an upstream-protocol annotation per protocol.
func (s *assumedService) manifest() string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Service\nmetadata:\n  namespace: %s\n  name: %s\n", s.namespace, s.name)
	var annotations []string
	for _, p := range upstreamProtocols[1:] {
		if ports := s.protocols[p]; len(ports) > 0 {
			annotations = append(annotations, fmt.Sprintf("    projectcontour.io/upstream-protocol.%s: %q\n", p, joinPorts(ports)))
		}
	}
	if len(annotations) > 0 {
		b.WriteString("  annotations:\n" + strings.Join(annotations, ""))
	}
	b.WriteString("spec:\n  ports:\n")
	for _, p := range s.ports {
		fmt.Fprintf(&b, "  - port: %d\n", p)
		if len(s.ports) > 1 {
			fmt.Fprintf(&b, "    name: port-%d\n", p)
		}
	}
	return b.String()
}

func joinPorts(ports []int32) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ",")
}

// kubernetesService is default/kubernetes, the API server's own Service,
// which every cluster has: port 443, named https.
const kubernetesService = `apiVersion: v1
kind: Service
metadata:
  namespace: default
  name: kubernetes
  labels: {component: apiserver, provider: kubernetes}
spec:
  ports:
  - name: https
    port: 443
    targetPort: 6443
`

// kubernetesServiceSource is where notices say default/kubernetes is from.
const kubernetesServiceSource = "<cluster: default/kubernetes>"

// check finds the usage errors in the flags.
func (f *Flags) Check() error {
	if _, err := parseAssumedServices(f.assumeServices); err != nil {
		return err
	}
	for _, p := range f.Contexts {
		if p == "-" {
			return fmt.Errorf("--cluster-context cannot read standard input (-): give a file or a directory")
		}
	}
	return nil
}

// objects are the cluster's objects in the loader's order: those of the
// cluster context, then the assumed Services and default/kubernetes where
// the context has no Service of their name (a dump is what the cluster
// really has).
func (f *Flags) Objects(maxInputSize int64) ([]loader.Object, error) {
	assumed, err := f.assumedObjects()
	if err != nil {
		return nil, err
	}
	if len(f.Contexts) == 0 {
		return assumed, nil
	}
	if f.cache == nil {
		f.cache = loader.NewCache()
	}
	loaded, err := loader.Load(f.Contexts, loader.Options{MaxInputSize: maxInputSize, Cache: f.cache})
	if err != nil {
		return nil, &ContextError{err}
	}
	f.Workloads = loaded.Workloads
	return mergeSorted(loaded.Objects, assumed), nil
}

// ContextError is a --cluster-context that could not be read: the input
// of the run is at fault, not its command line.
type ContextError struct{ Err error }

func (e *ContextError) Error() string { return "--cluster-context: " + e.Err.Error() }
func (e *ContextError) Unwrap() error { return e.Err }

// assumedObjects are the assumed Services and default/kubernetes, admitted
// by the loader, made once per set of flags.
func (f *Flags) assumedObjects() ([]loader.Object, error) {
	if f.assumed != nil && slices.Equal(f.assumedFrom, f.assumeServices) {
		return f.assumed, nil
	}
	services, err := parseAssumedServices(f.assumeServices)
	if err != nil {
		return nil, err
	}
	var objs []loader.Object
	haveKubernetes := false
	for _, s := range services {
		o, err := loadAssumed(s.manifest(), "--assume-service "+strings.Join(s.flags, " --assume-service "))
		if err != nil {
			return nil, err
		}
		haveKubernetes = haveKubernetes || (s.namespace == "default" && s.name == "kubernetes")
		objs = append(objs, o)
	}
	if !haveKubernetes {
		o, err := loadAssumed(kubernetesService, kubernetesServiceSource)
		if err != nil {
			return nil, err
		}
		objs = mergeSorted(objs, []loader.Object{o})
	}
	f.assumed, f.assumedFrom = objs, slices.Clone(f.assumeServices)
	return objs, nil
}

// loadAssumed admits one object made from flags, as if read from source.
func loadAssumed(manifest, source string) (loader.Object, error) {
	res, err := loader.Load([]string{"-"}, loader.Options{Stdin: strings.NewReader(manifest)})
	if err != nil {
		return loader.Object{}, fmt.Errorf("%s: %w", source, err)
	}
	o := res.Objects[0]
	o.Source = loader.Source{File: source}
	return o, nil
}

// mergeSorted merges two lists in the loader's order, the first's object
// winning when both have one of the same key.
func mergeSorted(first, second []loader.Object) []loader.Object {
	out := make([]loader.Object, 0, len(first)+len(second))
	i, j := 0, 0
	for i < len(first) || j < len(second) {
		switch {
		case j == len(second):
			out = append(out, first[i])
			i++
		case i == len(first):
			out = append(out, second[j])
			j++
		default:
			switch c := loader.Compare(first[i], second[j]); {
			case c < 0:
				out = append(out, first[i])
				i++
			case c > 0:
				out = append(out, second[j])
				j++
			default:
				out = append(out, first[i])
				i, j = i+1, j+1
			}
		}
	}
	return out
}
