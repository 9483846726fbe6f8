package repoconfig

// The instances: key of the repository config file: Contours whose install
// is not in the repository (a Helm chart from elsewhere), described by what
// their `contour serve` is given. translate.Instances adds them to those
// it finds.

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// configInstance is one item of instances:, as read.
type configInstance struct {
	name                 string
	line                 int
	ingressClassNames    []string
	configPath           string // resolved against the repository root
	contourConfiguration *types.NamespacedName
	configMap            *types.NamespacedName
	gateway              *types.NamespacedName
}

// InstanceKeys are the keys of an item of instances:, with what they are,
// for the schema.
var InstanceKeys = map[string]string{
	"name":                 "the instance's name, NS/NAME (that of the Deployment the chart installs, say); one found in the input of the same name is replaced",
	"ingressClassNames":    "the ingress classes it serves (contour serve --ingress-class-name); none: objects without a class and of class contour, or, with gateway, none",
	"configPath":           "its configuration file (contour serve --config-path), relative to the repository root",
	"contourConfiguration": "the ContourConfiguration NS/NAME of the input or cluster context that configures it (--contour-config-name)",
	"configMap":            "the ConfigMap NS/NAME of the input or cluster context whose contour.yaml configures it",
	"gateway":              "the Gateway NS/NAME it serves (gateway.gatewayRef); the instance found for that Gateway is replaced",
}

// instances reads the instances: list.
func (p *configParser) instances(v *yaml.Node) {
	if isNullNode(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.errorf(v.Line, "instances: expected a list, got %s", loader.DescribeNode(v))
		return
	}
	names := map[string]bool{}
	for i, it := range v.Content {
		it = follow(it)
		at := fmt.Sprintf("instances[%d]", i)
		if it.Kind != yaml.MappingNode {
			p.errorf(it.Line, "%s: expected an object, got %s", at, loader.DescribeNode(it))
			continue
		}
		in, ok := p.instance(at, it)
		if !ok {
			continue
		}
		if names[in.name] {
			p.errorf(it.Line, "%s.name: duplicate instance %q", at, in.name)
			continue
		}
		names[in.name] = true
		p.cfg.instances = append(p.cfg.instances, in)
	}
}

// instance reads one item of instances:; false when it has errors.
func (p *configParser) instance(at string, n *yaml.Node) (configInstance, bool) {
	errs := len(p.errs)
	in := configInstance{line: n.Line}
	ref := func(key string, v *yaml.Node) *types.NamespacedName {
		s, ok := p.scalar(at+"."+key, v)
		if !ok {
			return nil
		}
		ns, name, found := strings.Cut(s, "/")
		if !found || ns == "" || name == "" || strings.Contains(name, "/") {
			p.errorf(v.Line, "%s.%s: %q: want NAMESPACE/NAME", at, key, s)
			return nil
		}
		return &types.NamespacedName{Namespace: ns, Name: name}
	}
	var configs []string
	p.eachKey(n, at, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			if r := ref(key, v); r != nil {
				in.name = r.String()
			}
		case "ingressClassNames":
			in.ingressClassNames = NonEmpty(p.items(at+"."+key, v, false))
		case "configPath":
			if s, ok := p.scalar(at+"."+key, v); ok {
				in.configPath = p.resolve([]string{s}, true)[0]
			}
		case "contourConfiguration":
			in.contourConfiguration = ref(key, v)
		case "configMap":
			in.configMap = ref(key, v)
		case "gateway":
			in.gateway = ref(key, v)
		default:
			p.errorf(k.Line, "unknown field %q", at+"."+key)
			return
		}
		if key == "configPath" || key == "contourConfiguration" || key == "configMap" {
			configs = append(configs, key)
		}
	})
	if in.name == "" && len(p.errs) == errs {
		p.errorf(n.Line, "%s: name is required (NAMESPACE/NAME)", at)
	}
	if len(configs) > 1 {
		p.errorf(n.Line, "%s: %s: give one configuration", at, strings.Join(configs, " and "))
	}
	return in, len(p.errs) == errs
}

// scalar is a string value of key.
func (p *configParser) scalar(key string, v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode || isNullNode(v) || v.Value == "" {
		p.errorf(v.Line, "%s: expected a string, got %s", key, loader.DescribeNode(v))
		return "", false
	}
	return v.Value, true
}

// AddedInstances are the config file's instances as translate takes them,
// their configuration files read.
func (c *Config) AddedInstances() ([]translate.AddedInstance, error) {
	if c == nil {
		return nil, nil
	}
	out := make([]translate.AddedInstance, 0, len(c.instances))
	for _, in := range c.instances {
		a := translate.AddedInstance{
			Name: in.name, Source: loader.Source{File: c.file, Line: in.line},
			IngressClassNames: in.ingressClassNames, ContourConfiguration: in.contourConfiguration,
			ConfigMap: in.configMap, Gateway: in.gateway,
		}
		if in.configPath != "" {
			cfg, err := loader.LoadContourConfig(in.configPath, loader.Options{})
			if err != nil {
				return nil, fmt.Errorf("%s:%d: instance %s: %w", c.file, in.line, in.name, err)
			}
			a.Config = cfg
		}
		out = append(out, a)
	}
	return out, nil
}
