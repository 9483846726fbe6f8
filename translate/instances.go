package translate

// Instances: the Contours a repository installs. Contour serves one set of
// ingress classes with one configuration per `contour serve` process, and
// the Gateway provisioner starts one Contour per Gateway of its
// GatewayClass. A repository often holds several; each object is judged by
// the instance that serves it, so each instance is translated on its own.

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/gatewayapi"
)

// DefaultInstance is the name of the one instance of a run whose input
// installs no Contour: `contour serve` as contourc's flags describe it.
const DefaultInstance = "default"

// Instance is one Contour: its name, what it was found in, and the options
// it is translated with.
type Instance struct {
	// Name is NS/NAME of the Deployment or DaemonSet that runs it, of its
	// Gateway, or of its configuration object when nothing in the input
	// runs it; DefaultInstance for the implicit one.
	Name string
	// Kind is the kind of the object Name names ("" for the implicit one).
	Kind   string
	Source loader.Source
	// Options are the base options with the instance's own settings.
	Options Options
	// claims are the ingress classes it serves; "" stands for objects
	// without a class.
	claims []string
}

// Ref names the instance's object as messages do: "Deployment ns/name".
func (in Instance) Ref() string {
	if in.Kind == "" {
		return "the default instance (contourc's flags)"
	}
	ref := in.Kind + " " + in.Name
	if s := in.Source.String(); s != "" {
		ref += " (" + s + ")"
	}
	return ref
}

// Serves reports whether the instance serves obj by its ingress class: the
// classes it claims, wherever they were configured (a flag, its
// ContourConfiguration's spec.ingress.classNames, a Gateway's
// ContourDeployment runtimeSettings), not only the flags' Options.
// Objects of other kinds have no class and are served. An Instance made
// outside Instances (a test's, serve's of its flags) has no claims: its
// Options say.
func (in Instance) Serves(obj any) bool {
	if in.claims == nil {
		return in.Options.ServesClass(obj)
	}
	return !IsClassed(obj) || slices.Contains(in.claims, ClassOf(obj))
}

// Instances finds the Contour instances of the input. With a configuration
// given in base (a configuration file, a ContourConfiguration, ingress
// classes or a Gateway), that is the one instance, as before instances
// existed. Otherwise they are found in workloads (Deployments and
// DaemonSets running `contour serve`, ContourDeployments), in
// ContourConfigurations and `contour` ConfigMaps nothing runs, and in the
// Gateways of Contour's controller. A run with one class-based instance and
// one Gateway is one instance serving both, as Contour configured with
// neither a class nor a Gateway serves them. Two instances claiming the
// same ingress class are an error naming both. The instances of
// base.AddedInstances are added, each replacing the one found of its name
// (or of its Gateway); then no default instance is implied. The result is
// sorted by name.
func Instances(objs, workloads []loader.Object, base Options) ([]Instance, error) {
	if explicitConfiguration(base) {
		return []Instance{{Name: flagsInstanceName(base), Options: base, claims: claimsOf(base.IngressClassNames)}}, nil
	}
	f := instanceFinder{objs: objs, base: base}
	classBased, err := f.classBased(workloads)
	if err != nil {
		return nil, err
	}
	gateways := f.gateways(workloads, classBased)
	var out []Instance
	switch {
	case len(base.AddedInstances) > 0:
		// Instances named by the repository: each is its own, none is
		// implied.
		out = f.withAdded(append(classBased, gateways...))
	case len(classBased) <= 1 && len(gateways) == 1 && f.ownGateway(classBased) == nil:
		// One Contour serving the classes and the one Gateway: today's run.
		in := Instance{Name: gateways[0].Name, Kind: "Gateway", Source: gateways[0].Source, Options: base, claims: claimsOf(nil)}
		if len(classBased) == 1 {
			in = classBased[0]
		}
		out = []Instance{in}
	case len(classBased) == 0 && (len(gateways) == 0 || f.hasDefaultClassObject()):
		out = append(gateways, Instance{Name: DefaultInstance, Options: base, claims: claimsOf(nil)})
	default:
		out = append(classBased, gateways...)
	}
	for i := range out {
		out[i].Options.AddedInstances = nil
		out[i].Options.NoDefaultGateway = len(out) > 1
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, checkClaims(out)
}

// explicitConfiguration reports whether the flags configure the instance,
// which makes the run a single-instance one.
func explicitConfiguration(o Options) bool {
	return o.Config != nil || o.ContourConfiguration != nil || len(o.IngressClassNames) > 0 || o.Gateway != nil
}

// flagsInstanceName names the instance contourc's flags configure.
func flagsInstanceName(o Options) string {
	switch {
	case o.ContourConfiguration != nil:
		return o.ContourConfiguration.String()
	case o.Gateway != nil && len(o.IngressClassNames) == 0 && o.Config == nil:
		return o.Gateway.String()
	}
	return DefaultInstance
}

// claimsOf are the classes an instance serves given its configured ones:
// without any, objects without a class and of class "contour".
func claimsOf(classes []string) []string {
	if len(classes) == 0 {
		return []string{"", index.DefaultIngressClass}
	}
	return classes
}

// checkClaims refuses two instances serving the same ingress class: Contour
// would have both write status on the objects, each with its own verdict.
func checkClaims(instances []Instance) error {
	owner := map[string]int{}
	type pair struct{ first, second int }
	var pairs []pair
	shared := map[pair][]string{}
	for i, in := range instances {
		for _, class := range in.claims {
			j, taken := owner[class]
			if !taken {
				owner[class] = i
				continue
			}
			p := pair{j, i}
			if shared[p] == nil {
				pairs = append(pairs, p)
			}
			what := fmt.Sprintf("ingress class %q", class)
			if class == "" {
				what = "objects without an ingress class"
			}
			shared[p] = append(shared[p], what)
		}
	}
	var errs []string
	for _, p := range pairs {
		errs = append(errs, fmt.Sprintf("two Contour instances serve %s: %s and %s; give each its own --ingress-class-name",
			strings.Join(shared[p], " and "), instances[p.first].Ref(), instances[p.second].Ref()))
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "\n"))
}

type instanceFinder struct {
	objs []loader.Object
	base Options
}

// classBased finds the instances that serve ingress classes: the workloads
// running `contour serve`, then the ContourConfigurations and `contour`
// ConfigMaps none of them reads.
func (f *instanceFinder) classBased(workloads []loader.Object) ([]Instance, error) {
	var out []Instance
	used := map[string]bool{} // "Kind ns/name" of the configurations read
	for _, w := range workloads {
		in, ok, err := f.fromWorkload(w)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if c := in.Options.ContourConfiguration; c != nil {
			used["ContourConfiguration "+c.String()] = true
		}
		if c := in.Options.ConfigMap; c != nil {
			used["ConfigMap "+c.Namespace+"/"+c.Name] = true
		}
		out = append(out, in)
	}
	for _, o := range f.objs {
		switch x := o.Obj.(type) {
		case *contourv1alpha1.ContourConfiguration:
			name := types.NamespacedName{Namespace: x.Namespace, Name: x.Name}
			if used["ContourConfiguration "+name.String()] {
				continue
			}
			opts := f.base
			opts.ContourConfiguration = &name
			var classes []string
			if x.Spec.Ingress != nil {
				classes = x.Spec.Ingress.ClassNames
			}
			out = append(out, Instance{Name: name.String(), Kind: "ContourConfiguration", Source: o.Source, Options: opts, claims: claimsOf(classes)})
		case *corev1.ConfigMap:
			if x.Name != config.ConfigMapName || used["ConfigMap "+x.Namespace+"/"+x.Name] {
				continue
			}
			if _, has := x.Data[config.ConfigMapKey]; !has {
				continue
			}
			opts := f.base
			opts.ConfigMap = &config.ConfigMapRef{Namespace: x.Namespace, Name: x.Name, Key: config.ConfigMapKey}
			out = append(out, Instance{Name: x.Namespace + "/" + x.Name, Kind: "ConfigMap", Source: o.Source, Options: opts, claims: claimsOf(nil)})
		}
	}
	return out, nil
}

// ownGateway is the Gateway the one class-based instance's configuration
// names, nil when it names none (or there is not one instance).
func (f *instanceFinder) ownGateway(classBased []Instance) *types.NamespacedName {
	if len(classBased) != 1 {
		return nil
	}
	return f.gatewayOfConfiguration(classBased[0].Options)
}

// gatewayOfConfiguration is the Gateway an instance's configuration object
// names (gateway.gatewayRef), if any.
func (f *instanceFinder) gatewayOfConfiguration(o Options) *types.NamespacedName {
	if c := o.ContourConfiguration; c != nil {
		if cc, _ := config.FindContourConfiguration(f.objs, *c); cc != nil && cc.Spec.Gateway != nil {
			return &types.NamespacedName{Namespace: cc.Spec.Gateway.GatewayRef.Namespace, Name: cc.Spec.Gateway.GatewayRef.Name}
		}
	}
	if c := o.ConfigMap; c != nil {
		if cm, found := config.FindConfigMap(f.objs, c); cm != nil {
			if cfg, err := config.ParseConfigMap(cm, found, c.Key); err == nil && cfg.Gateway != nil {
				return &types.NamespacedName{Namespace: cfg.Gateway.GatewayRef.Namespace, Name: cfg.Gateway.GatewayRef.Name}
			}
		}
	}
	return nil
}

// hasDefaultClassObject reports whether an Ingress or HTTPProxy of the
// default class (or none) is in the input: someone must serve it.
func (f *instanceFinder) hasDefaultClassObject() bool {
	def := Options{}
	for _, o := range f.objs {
		if IsClassed(o.Obj) && def.ServesClass(o.Obj) {
			return true
		}
	}
	return false
}

// gateways are the instances of the Gateways of Contour's controller that
// no class-based instance's configuration names: the Gateway provisioner
// starts a Contour for each, configured by the runtimeSettings of the
// ContourDeployment its Gateway or GatewayClass points at.
func (f *instanceFinder) gateways(workloads []loader.Object, classBased []Instance) []Instance {
	controller := f.base.GatewayController
	if controller == "" {
		controller = gatewayapi.DefaultController
	}
	owned := map[types.NamespacedName]bool{}
	for _, in := range classBased {
		if gw := f.gatewayOfConfiguration(in.Options); gw != nil {
			owned[*gw] = true
		}
	}
	classes := map[string]*gatewayv1.GatewayClass{}
	for _, o := range f.objs {
		if gc, ok := o.Obj.(*gatewayv1.GatewayClass); ok && string(gc.Spec.ControllerName) == controller {
			classes[gc.Name] = gc
		}
	}
	var out []Instance
	for _, o := range f.objs {
		gw, ok := o.Obj.(*gatewayv1.Gateway)
		if !ok || classes[string(gw.Spec.GatewayClassName)] == nil {
			continue
		}
		name := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
		if owned[name] {
			continue
		}
		opts := f.base
		opts.Gateway, opts.RequireGateway = &name, true
		opts.NoIngress = true
		var classNames []string
		if spec := contourDeploymentOf(workloads, gw, classes[string(gw.Spec.GatewayClassName)]); spec != nil && spec.RuntimeSettings != nil {
			opts.RuntimeSettings = spec.RuntimeSettings
			if i := spec.RuntimeSettings.Ingress; i != nil && len(i.ClassNames) > 0 {
				classNames = i.ClassNames
				opts.NoIngress = false
			}
		}
		in := Instance{Name: name.String(), Kind: "Gateway", Source: o.Source, Options: opts}
		if !opts.NoIngress {
			in.claims = classNames
		}
		out = append(out, in)
	}
	return out
}

// contourDeploymentOf is the spec of the ContourDeployment a Gateway's
// infrastructure.parametersRef, or else its GatewayClass's parametersRef,
// names, as the provisioner reads them (the Gateway's wins).
func contourDeploymentOf(workloads []loader.Object, gw *gatewayv1.Gateway, gc *gatewayv1.GatewayClass) *contourv1alpha1.ContourDeploymentSpec {
	var ns, name string
	if inf := gw.Spec.Infrastructure; inf != nil && inf.ParametersRef != nil && inf.ParametersRef.Kind == "ContourDeployment" {
		ns, name = gw.Namespace, inf.ParametersRef.Name
	} else if p := gc.Spec.ParametersRef; p != nil && p.Kind == "ContourDeployment" && p.Namespace != nil {
		ns, name = string(*p.Namespace), p.Name
	} else {
		return nil
	}
	for _, w := range workloads {
		u := w.Obj.(*unstructured.Unstructured)
		if u.GetKind() == "ContourDeployment" && u.GetNamespace() == ns && u.GetName() == name {
			var cd contourv1alpha1.ContourDeployment
			if fromUnstructured(u, &cd) != nil {
				return nil
			}
			return &cd.Spec
		}
	}
	return nil
}

// fromUnstructured decodes u into out through its JSON form.
func fromUnstructured(u *unstructured.Unstructured, out any) error {
	b, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// fromWorkload reads a Deployment or DaemonSet: an instance when one of its
// containers runs `contour serve`.
func (f *instanceFinder) fromWorkload(w loader.Object) (Instance, bool, error) {
	u := w.Obj.(*unstructured.Unstructured)
	var pod *corev1.PodSpec
	switch u.GetKind() {
	case "Deployment":
		var d appsv1.Deployment
		if fromUnstructured(u, &d) != nil {
			return Instance{}, false, nil
		}
		pod = &d.Spec.Template.Spec
	case "DaemonSet":
		var d appsv1.DaemonSet
		if fromUnstructured(u, &d) != nil {
			return Instance{}, false, nil
		}
		pod = &d.Spec.Template.Spec
	default:
		return Instance{}, false, nil
	}
	for _, c := range pod.Containers {
		args, ok := contourServeArgs(c)
		if !ok {
			continue
		}
		name := u.GetNamespace() + "/" + u.GetName()
		in := Instance{Name: name, Kind: u.GetKind(), Source: w.Source}
		opts, err := f.serveOptions(args, u.GetNamespace(), c, pod, in.Kind+" "+name)
		if err != nil {
			return Instance{}, false, config.ObjectErrors(&w, in.Kind+" "+name, err)
		}
		in.Options = opts
		classes := opts.IngressClassNames
		if cc := opts.ContourConfiguration; cc != nil && len(classes) == 0 {
			if found, _ := config.FindContourConfiguration(f.objs, *cc); found != nil && found.Spec.Ingress != nil {
				classes = found.Spec.Ingress.ClassNames
			}
		}
		in.claims = claimsOf(classes)
		return in, true, nil
	}
	return Instance{}, false, nil
}

// contourServeArgs are the arguments after `serve` of a container running
// contour: its command and args together, as the container runtime joins
// them; the image's entrypoint when command is empty is Contour's.
func contourServeArgs(c corev1.Container) ([]string, bool) {
	all := append(slices.Clone(c.Command), c.Args...)
	runsContour := len(c.Command) == 0 && strings.Contains(c.Image, "contour")
	// contour serve, /bin/contour serve, or serve under Contour's image.
	for i := 0; i < len(all) && i < 2; i++ {
		switch {
		case path.Base(all[i]) == "contour":
			runsContour = true
		case all[i] == "serve" && runsContour:
			return all[i+1:], true
		}
	}
	return nil, false
}
