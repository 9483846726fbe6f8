package translate

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/contourc/contourc/translate/config"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The `contour serve` command line of a workload, read as Contour's flag
// parser (kingpin) reads it: --name=value or --name value, -c for
// --config-path, booleans bare or as --no-name.

// isServeBoolFlag reports whether a `contour serve` flag takes no value.
func isServeBoolFlag(name string) bool {
	switch name {
	case "debug", "disable-leader-election", "incluster", "insecure", "use-proxy-protocol":
		return true
	}
	return false
}

// parseServeArgs splits args into flag values by name, repeated flags in
// order; positional arguments are refused, as `contour serve` takes none.
func parseServeArgs(args []string) (map[string][]string, error) {
	out := map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var name, value string
		switch {
		case a == "-c":
			name = "config-path"
		case strings.HasPrefix(a, "--"):
			n, v, hasValue := strings.Cut(a[2:], "=")
			name = n
			if hasValue {
				out[name] = append(out[name], v)
				continue
			}
			if isServeBoolFlag(name) {
				out[name] = append(out[name], "true")
				continue
			}
			if b, ok := strings.CutPrefix(name, "no-"); ok && isServeBoolFlag(b) {
				out[b] = append(out[b], "false")
				continue
			}
		default:
			return nil, fmt.Errorf("contour serve: unexpected argument %q", a)
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("contour serve: --%s needs a value", name)
		}
		i++
		value = args[i]
		out[name] = append(out[name], value)
	}
	return out, nil
}

// serveOptions are the base options with what a workload's `contour serve`
// command line sets: its classes, the configuration it reads (the
// ConfigMap mounted at --config-path, or the ContourConfiguration of
// --contour-config-name in CONTOUR_NAMESPACE), and the flags of ServeFlags.
func (f *instanceFinder) serveOptions(args []string, ns string, c corev1.Container, pod *corev1.PodSpec, what string) (Options, error) {
	flags, err := parseServeArgs(args)
	if err != nil {
		return Options{}, err
	}
	last := func(name string) string {
		if v := flags[name]; len(v) > 0 {
			return v[len(v)-1]
		}
		return ""
	}
	list := func(name string) []string {
		var out []string
		for _, v := range flags[name] {
			for _, item := range strings.Split(v, ",") {
				if item = strings.TrimSpace(item); item != "" {
					out = append(out, item)
				}
			}
		}
		return out
	}
	opts := f.base
	opts.IngressClassNames = list("ingress-class-name")
	if v := list("root-namespaces"); len(v) > 0 {
		opts.RootNamespaces = v
	}
	fl := &opts.Flags
	for _, s := range []struct {
		name string
		to   *string
	}{{"envoy-service-http-address", &fl.HTTPAddress}, {"envoy-service-https-address", &fl.HTTPSAddress}, {"accesslog-format", &fl.AccessLogFormat}} {
		if v := last(s.name); v != "" {
			*s.to = v
		}
	}
	for _, p := range []struct {
		name string
		to   *int
	}{{"envoy-service-http-port", &fl.HTTPPort}, {"envoy-service-https-port", &fl.HTTPSPort}} {
		if v := last(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return Options{}, fmt.Errorf("contour serve --%s %q: want a port number", p.name, v)
			}
			*p.to = n
		}
	}
	if last("use-proxy-protocol") == "true" {
		fl.UseProxyProtocol = true
	}
	if v := list("watch-namespaces"); len(v) > 0 {
		fl.WatchNamespaces = v
	}
	if v := list("disable-feature"); len(v) > 0 {
		fl.DisabledFeatures = v
	}
	configPath, ccName := last("config-path"), last("contour-config-name")
	switch {
	case configPath != "" && ccName != "":
		return Options{}, fmt.Errorf("contour serve: cannot specify both --contour-config and -c/--config-path")
	case configPath != "":
		ref, err := mountedConfigMap(configPath, ns, c, pod)
		if err != nil {
			return Options{}, err
		}
		ref.Via = "mounted at --config-path " + configPath + " of " + what
		if cm, _ := config.FindConfigMap(f.objs, ref); cm == nil {
			return Options{}, fmt.Errorf("--config-path %s is ConfigMap %s/%s, key %s, which is not in the input", configPath, ref.Namespace, ref.Name, ref.Key)
		}
		opts.ConfigMap = ref
	case ccName != "":
		opts.ContourConfiguration = &types.NamespacedName{Namespace: contourNamespace(ns, c), Name: ccName}
	}
	return opts, nil
}

// contourNamespace is where Contour looks for its ContourConfiguration: the
// CONTOUR_NAMESPACE environment variable (the pod's namespace when taken
// from metadata.namespace), else projectcontour.
func contourNamespace(podNamespace string, c corev1.Container) string {
	for _, e := range c.Env {
		if e.Name != "CONTOUR_NAMESPACE" {
			continue
		}
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace" {
			return podNamespace
		}
		return e.Value
	}
	return "projectcontour"
}

// mountedConfigMap finds the ConfigMap volume mounted where configPath
// lives, and the key configPath is: the file's name, or the key of the
// volume item projected to that path, or the subPath of a mount of the
// file itself.
func mountedConfigMap(configPath, ns string, c corev1.Container, pod *corev1.PodSpec) (*config.ConfigMapRef, error) {
	for _, m := range c.VolumeMounts {
		var rel string
		switch {
		case m.MountPath == configPath && m.SubPath != "":
			rel = m.SubPath
		case strings.HasPrefix(configPath, strings.TrimSuffix(m.MountPath, "/")+"/"):
			rel = strings.TrimPrefix(configPath, strings.TrimSuffix(m.MountPath, "/")+"/")
		default:
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name != m.Name || v.ConfigMap == nil {
				continue
			}
			key := path.Base(rel)
			for _, item := range v.ConfigMap.Items {
				if item.Path == rel {
					key = item.Key
				}
			}
			return &config.ConfigMapRef{Namespace: ns, Name: v.ConfigMap.Name, Key: key}, nil
		}
	}
	return nil, fmt.Errorf("--config-path %s: no ConfigMap volume is mounted there", configPath)
}
