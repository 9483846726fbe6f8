package translate

// Instances the repository config file adds: a Contour whose install is
// not in the input (a Helm chart rendered elsewhere), described by what its
// `contour serve` would be given.

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
)

// AddedKind is the Kind of an instance the repository config file adds.
const AddedKind = "Instance"

// AddedInstance is one item of .contourc.yaml's instances: a Contour named
// NS/NAME serving IngressClassNames (Contour's --ingress-class-name) and/or
// Gateway (its gateway.gatewayRef), configured by at most one of Config
// (--config-path), ContourConfiguration (--contour-config-name) and
// ConfigMap (a ConfigMap of the input or cluster context holding
// contour.yaml).
type AddedInstance struct {
	Name                 string
	Source               loader.Source
	IngressClassNames    []string
	Config               *loader.ContourConfig
	ContourConfiguration *types.NamespacedName
	ConfigMap            *types.NamespacedName
	Gateway              *types.NamespacedName
}

// added is the instance a describes, on the base options.
func (f *instanceFinder) added(a AddedInstance) Instance {
	opts := f.base
	opts.AddedInstances = nil
	opts.IngressClassNames = a.IngressClassNames
	opts.Config, opts.ContourConfiguration = a.Config, a.ContourConfiguration
	if a.ConfigMap != nil {
		opts.ConfigMap = &config.ConfigMapRef{Namespace: a.ConfigMap.Namespace, Name: a.ConfigMap.Name, Key: config.ConfigMapKey,
			Via: "instance " + a.Name + " of " + a.Source.String()}
	}
	in := Instance{Name: a.Name, Kind: AddedKind, Source: a.Source}
	classes := a.IngressClassNames
	if cc := a.ContourConfiguration; cc != nil && len(classes) == 0 {
		if found, _ := config.FindContourConfiguration(f.objs, *cc); found != nil && found.Spec.Ingress != nil {
			classes = found.Spec.Ingress.ClassNames
		}
	}
	if a.Gateway != nil {
		opts.Gateway, opts.RequireGateway = a.Gateway, true
		// A Gateway's Contour serves no ingress class unless told one.
		opts.NoIngress = len(classes) == 0
	}
	in.Options = opts
	if !opts.NoIngress {
		in.claims = claimsOf(classes)
	}
	return in
}

// withAdded puts the added instances among the found ones: one of the same
// name, or the instance of the Gateway an added one serves, is replaced.
func (f *instanceFinder) withAdded(found []Instance) []Instance {
	added := map[string]bool{}
	served := map[string]bool{}
	var out []Instance
	for _, a := range f.base.AddedInstances {
		added[a.Name] = true
		if a.Gateway != nil {
			served[a.Gateway.String()] = true
		}
		out = append(out, f.added(a))
	}
	for _, in := range found {
		if added[in.Name] || (in.Kind == "Gateway" && served[in.Name]) {
			continue
		}
		out = append(out, in)
	}
	return out
}
