package translate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
)

// instancesOf loads manifest and finds its instances with base options.
func instancesOf(t *testing.T, manifest string, base Options) ([]Instance, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.yaml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := loader.Load([]string{dir}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Instances(res.Objects, res.Workloads, base)
}

const contourDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: contour, namespace: NS}
spec:
  selector: {matchLabels: {app: contour}}
  template:
    metadata: {labels: {app: contour}}
    spec:
      containers:
      - name: contour
        image: ghcr.io/projectcontour/contour:v1.33.8
        CONTAINER
`

func deploymentIn(ns, container string) string {
	return strings.NewReplacer("NS", ns, "CONTAINER", strings.ReplaceAll(strings.TrimSpace(container), "\n", "\n        ")).Replace(contourDeployment)
}

// gatewayClass is a GatewayClass of Contour's controller, for the instances'
// Gateways.
const gatewayClass = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: contour}\nspec: {controllerName: projectcontour.io/gateway-controller}\n"

// gateway is a document of Gateway ns/gw of gatewayClass, with one HTTP
// listener.
func gateway(ns string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: " + ns + "}\nspec:\n  gatewayClassName: contour\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n"
}

func TestInstances(t *testing.T) {
	for _, tc := range []struct {
		name, manifest string
		base           Options
		want           []string // "name kind classes"
		check          func(*testing.T, []Instance)
		err            string
	}{{
		name: "nothing installs Contour",
		want: []string{"default  [ contour]"},
	}, {
		name:     "a lone contour ConfigMap",
		manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: contour, namespace: projectcontour}\ndata: {contour.yaml: \"{}\"}\n",
		want:     []string{"projectcontour/contour ConfigMap [ contour]"},
	}, {
		name:     "flags configure the one instance",
		manifest: deploymentIn("a", "args: [serve, --ingress-class-name=a]"),
		base:     Options{IngressClassNames: []string{"x"}},
		want:     []string{"default  [x]"},
	}, {
		name:     "contour serve args, split and joined, with comma-separated classes",
		manifest: deploymentIn("a", "command: [/bin/contour]\nargs: [serve, --ingress-class-name, \"a, b\", \"--root-namespaces=r1,r2\", --use-proxy-protocol, --envoy-service-http-port=81]"),
		want:     []string{"a/contour Deployment [a b]"},
		check: func(t *testing.T, ins []Instance) {
			o := ins[0].Options
			if strings.Join(o.RootNamespaces, ",") != "r1,r2" || !o.Flags.UseProxyProtocol || o.Flags.HTTPPort != 81 {
				t.Errorf("options %+v", o)
			}
		},
	}, {
		name:     "a container that is not contour serve",
		manifest: deploymentIn("a", "args: [bootstrap, /config/envoy.json]"),
		want:     []string{"default  [ contour]"},
	}, {
		name: "--contour-config-name in CONTOUR_NAMESPACE from the pod's namespace",
		manifest: deploymentIn("a", "args: [contour, serve, --contour-config-name=cc]\nenv: [{name: CONTOUR_NAMESPACE, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}]") +
			"---\napiVersion: projectcontour.io/v1alpha1\nkind: ContourConfiguration\nmetadata: {name: cc, namespace: a}\nspec: {ingress: {classNames: [fromcc]}}\n",
		want: []string{"a/contour Deployment [fromcc]"},
		check: func(t *testing.T, ins []Instance) {
			if c := ins[0].Options.ContourConfiguration; c == nil || c.String() != "a/cc" {
				t.Errorf("ContourConfiguration %v, want a/cc", c)
			}
		},
	}, {
		name: "--config-path of a file mounted by subPath",
		manifest: deploymentIn("a", "args: [serve, --config-path=/etc/c.yaml]\nvolumeMounts: [{name: v, mountPath: /etc/c.yaml, subPath: main.yaml}]") +
			"      volumes: [{name: v, configMap: {name: cfg}}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: a}\ndata: {main.yaml: \"{}\"}\n",
		want: []string{"a/contour Deployment [ contour]"},
		check: func(t *testing.T, ins []Instance) {
			if c := ins[0].Options.ConfigMap; c == nil || c.Name != "cfg" || c.Key != "main.yaml" {
				t.Errorf("ConfigMap %+v, want a/cfg main.yaml", c)
			}
		},
	}, {
		name:     "--config-path with nothing mounted there",
		manifest: deploymentIn("a", "args: [serve, --config-path=/config/contour.yaml]"),
		err:      "Deployment a/contour: --config-path /config/contour.yaml: no ConfigMap volume is mounted there",
	}, {
		name:     "one instance and one Gateway are one run",
		manifest: gatewayClass + gateway("g"),
		want:     []string{"g/gw Gateway [ contour]"},
	}, {
		name:     "two Gateways and class-less objects",
		manifest: gatewayClass + gateway("g1") + gateway("g2") + "---\napiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: p, namespace: a}\nspec: {virtualhost: {fqdn: a.example.com}}\n",
		want:     []string{"default  [ contour]", "g1/gw Gateway []", "g2/gw Gateway []"},
		check: func(t *testing.T, ins []Instance) {
			if !ins[0].Options.NoDefaultGateway || !ins[1].Options.NoIngress || ins[1].Options.Gateway.String() != "g1/gw" {
				t.Errorf("options %+v", ins)
			}
		},
	}, {
		name: "a Gateway's ContourDeployment runtimeSettings",
		manifest: gatewayClass + gateway("g1") + gateway("g2") +
			"  infrastructure: {parametersRef: {group: projectcontour.io, kind: ContourDeployment, name: params}}\n" +
			"---\napiVersion: projectcontour.io/v1alpha1\nkind: ContourDeployment\nmetadata: {name: params, namespace: g2}\nspec: {runtimeSettings: {ingress: {classNames: [team]}}}\n",
		want: []string{"g1/gw Gateway []", "g2/gw Gateway [team]"},
	}, {
		name: "two instances claiming one class",
		manifest: deploymentIn("a", "args: [serve, --ingress-class-name=shared]") + "---\n" +
			deploymentIn("b", "args: [serve, --ingress-class-name=shared]"),
		err: `two Contour instances serve ingress class "shared": Deployment a/contour (`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ins, err := instancesOf(t, tc.manifest, tc.base)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range ins {
				got = append(got, in.Name+" "+in.Kind+" "+"["+strings.Join(in.claims, " ")+"]")
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("instances\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if tc.check != nil {
				tc.check(t, ins)
			}
		})
	}
}

// TestInstanceServes checks that an instance serves the Ingresses and
// HTTPProxies of the classes it claims, however they were configured, and
// no others; objects without a class only when it claims none.
func TestInstanceServes(t *testing.T) {
	proxy := func(class string) *contourv1.HTTPProxy {
		return &contourv1.HTTPProxy{Spec: contourv1.HTTPProxySpec{IngressClassName: class}}
	}
	for _, tc := range []struct {
		name, manifest string
		instance       string
		served         map[string]bool // class ("" for none) -> served
	}{{
		name:     "the default instance",
		instance: DefaultInstance,
		served:   map[string]bool{"": true, "contour": true, "team": false},
	}, {
		name: "a ContourConfiguration's classNames",
		manifest: deploymentIn("a", "args: [contour, serve, --contour-config-name=cc]\nenv: [{name: CONTOUR_NAMESPACE, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}]") +
			"---\napiVersion: projectcontour.io/v1alpha1\nkind: ContourConfiguration\nmetadata: {name: cc, namespace: a}\nspec: {ingress: {classNames: [team]}}\n",
		instance: "a/contour",
		served:   map[string]bool{"": false, "contour": false, "team": true},
	}, {
		name: "a Gateway's ContourDeployment classNames",
		manifest: gatewayClass + gateway("g1") + gateway("g2") +
			"  infrastructure: {parametersRef: {group: projectcontour.io, kind: ContourDeployment, name: params}}\n" +
			"---\napiVersion: projectcontour.io/v1alpha1\nkind: ContourDeployment\nmetadata: {name: params, namespace: g2}\nspec: {runtimeSettings: {ingress: {classNames: [team]}}}\n",
		instance: "g2/gw",
		served:   map[string]bool{"": false, "contour": false, "team": true},
	}, {
		name:     "a Gateway's own instance serves no class",
		manifest: gatewayClass + gateway("g1") + gateway("g2"),
		instance: "g1/gw",
		served:   map[string]bool{"": false, "contour": false},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ins, err := instancesOf(t, tc.manifest, Options{})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ins, func(in Instance) bool { return in.Name == tc.instance })
			if i < 0 {
				t.Fatalf("no instance %s among %+v", tc.instance, ins)
			}
			for class, want := range tc.served {
				if got := ins[i].Serves(proxy(class)); got != want {
					t.Errorf("Serves(HTTPProxy of class %q) = %v, want %v", class, got, want)
				}
			}
			if !ins[i].Serves(&corev1.Service{}) {
				t.Error("a Service has no class and is served")
			}
		})
	}
}
