package loader

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/contourc/contourc/loader/builtin"
)

// admissionCase is one object and what the API server says of it: the
// messages of its errors (none when valid), and the line of the first.
type admissionCase struct {
	name string
	doc  string
	want []string
	line int
}

// runAdmissionCases loads each case's document and compares every error.
func runAdmissionCases(t *testing.T, cases []admissionCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(tc.doc)})
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("refused a valid object: %v", err)
				}
				if len(res.Objects) == 0 {
					t.Fatal("the object was not loaded")
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", tc.want)
			}
			var got []string
			for _, e := range unjoin(err) {
				got = append(got, e.(*Error).Msg)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if first := unjoin(err)[0].(*Error); first.Source.Line != tc.line {
				t.Errorf("first error at line %d, want %d: %v", first.Source.Line, tc.line, first)
			}
		})
	}
}

// ingressDoc is an Ingress whose spec is spec (indented by two spaces);
// spec starts on line 6.
func ingressDoc(spec string) string {
	return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n" + spec
}

// ingressPath is an Ingress of one rule for host with one path; the path's
// fields (path, pathType) start on line 10.
func ingressPath(host, fields string) string {
	return ingressDoc("  rules:\n  - host: " + host + "\n    http:\n      paths:\n" + fields +
		"        backend:\n          service:\n            name: web\n            port:\n              number: 80\n")
}

const dns1123SubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

const wildcardMsg = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

// TestIngressAdmission covers the rules of ValidateIngressCreate.
func TestIngressAdmission(t *testing.T) {
	prefix := "      - path: /\n        pathType: Prefix\n"
	runAdmissionCases(t, []admissionCase{
		{name: "valid", doc: ingressPath("web.example.com", prefix)},
		{name: "valid wildcard host", doc: ingressPath(`"*.example.com"`, prefix)},
		{name: "valid implementation-specific empty path", doc: ingressPath("web.example.com", "      - pathType: ImplementationSpecific\n")},
		{name: "host with capitals and underscore", doc: ingressPath("Web_Upper.Example.com", prefix), line: 7,
			want: []string{`spec.rules[0].host: Invalid value: "Web_Upper.Example.com": ` + dns1123SubdomainMsg}},
		{name: "host with an unexpanded variable", doc: ingressPath("web.${DOMAIN}", prefix), line: 7,
			want: []string{`spec.rules[0].host: Invalid value: "web.${DOMAIN}": ` + dns1123SubdomainMsg +
				"; hint: ${DOMAIN} is a Flux variable; pass --substitute DOMAIN=..."}},
		{name: "host an IP address", doc: ingressPath("10.0.0.1", prefix), line: 7,
			want: []string{`spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`}},
		{name: "wildcard not leftmost", doc: ingressPath(`"web.*.example.com"`, prefix), line: 7,
			want: []string{`spec.rules[0].host: Invalid value: "web.*.example.com": ` + wildcardMsg}},
		{name: "path without pathType", doc: ingressPath("web.example.com", "      - path: /\n"), line: 10,
			want: []string{`spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified`}},
		{name: "relative Prefix path", doc: ingressPath("web.example.com", "      - path: relative\n        pathType: Prefix\n"), line: 10,
			want: []string{`spec.rules[0].http.paths[0].path: Invalid value: "relative": must be an absolute path`}},
		{name: "empty Exact path", doc: ingressPath("web.example.com", "      - pathType: Exact\n"), line: 10,
			want: []string{`spec.rules[0].http.paths[0].path: Invalid value: "": must be an absolute path`}},
		{name: "dot segments", doc: ingressPath("web.example.com", "      - path: /a/../b/.\n        pathType: Exact\n"), line: 10,
			want: []string{`spec.rules[0].http.paths[0].path: Invalid value: "/a/../b/.": must not contain '/../'`,
				`spec.rules[0].http.paths[0].path: Invalid value: "/a/../b/.": cannot end with '/.'`}},
		{name: "relative implementation-specific path", doc: ingressPath("web.example.com", "      - path: a\n        pathType: ImplementationSpecific\n"), line: 10,
			want: []string{`spec.rules[0].http.paths[0].path: Invalid value: "a": must be an absolute path`}},
		{name: "unknown pathType", doc: ingressPath("web.example.com", "      - path: /\n        pathType: Regex\n"), line: 11,
			want: []string{`spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"`}},
		{name: "http without paths", doc: ingressDoc("  rules:\n  - host: web.example.com\n    http:\n      paths: []\n"), line: 9,
			want: []string{`spec.rules[0].http.paths: Required value`}},
		{name: "neither rules nor default backend", doc: ingressDoc("  ingressClassName: contour\n"), line: 6,
			want: []string{"spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"}},
		{name: "backend service name", doc: ingressDoc("  defaultBackend:\n    service:\n      name: web_svc\n      port:\n        number: 80\n"), line: 8,
			want: []string{`spec.defaultBackend.service.name: Invalid value: "web_svc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{name: "backend port name and number", doc: ingressDoc("  defaultBackend:\n    service:\n      name: web\n      port:\n        name: http\n        number: 80\n"), line: 7,
			want: []string{`spec.defaultBackend: Invalid value: "": cannot set both port name & port number`}},
		{name: "backend without port", doc: ingressDoc("  defaultBackend:\n    service:\n      name: web\n      port: {}\n"), line: 7,
			want: []string{`spec.defaultBackend: Required value: port name or number is required`}},
		{name: "backend port name", doc: ingressDoc("  defaultBackend:\n    service:\n      name: web\n      port:\n        name: http--alt\n"), line: 10,
			want: []string{`spec.defaultBackend.service.port.name: Invalid value: "http--alt": must not contain consecutive hyphens`}},
		{name: "backend port number", doc: ingressDoc("  defaultBackend:\n    service:\n      name: web\n      port:\n        number: 70000\n"), line: 10,
			want: []string{`spec.defaultBackend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive`}},
		{name: "backend neither service nor resource", doc: ingressDoc("  defaultBackend: {}\n"), line: 6,
			want: []string{`spec.defaultBackend: Invalid value: "": resource or service backend is required`}},
		{name: "backend resource and service", doc: ingressDoc("  defaultBackend:\n    resource: {kind: Bucket, name: b}\n    service: {name: web, port: {number: 80}}\n"), line: 7,
			want: []string{`spec.defaultBackend: Invalid value: "": cannot set both resource and service backends`}},
		{name: "resource backend without kind", doc: ingressDoc("  defaultBackend:\n    resource: {apiGroup: example.com, name: b}\n"), line: 7,
			want: []string{`spec.defaultBackend.resource.kind: Required value`}},
		{name: "TLS host and secret name", doc: ingressDoc("  defaultBackend: {service: {name: web, port: {number: 80}}}\n  tls:\n  - hosts: [\"*.example.com\", Bad_Host]\n    secretName: tls_cert\n"), line: 8,
			want: []string{`spec.tls[0].hosts[1]: Invalid value: "Bad_Host": ` + dns1123SubdomainMsg,
				`spec.tls[0].secretName: Invalid value: "tls_cert": ` + dns1123SubdomainMsg}},
		{name: "class name", doc: ingressDoc("  ingressClassName: my_class\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n"), line: 6,
			want: []string{`spec.ingressClassName: Invalid value: "my_class": ` + dns1123SubdomainMsg}},
		{name: "class annotation disagrees with ingressClassName",
			doc: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  annotations:\n    kubernetes.io/ingress.class: nginx\nspec:\n  ingressClassName: contour\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n", line: 6,
			want: []string{"annotations.kubernetes.io/ingress.class: Invalid value: \"nginx\": must match `ingressClassName` when both are specified"}},
	})
}

// serviceDoc is a Service whose spec is spec; spec starts on line 6.
func serviceDoc(spec string) string {
	return "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n" + spec
}

// TestServiceAdmission covers the rules of ValidateService the loader applies.
func TestServiceAdmission(t *testing.T) {
	runAdmissionCases(t, []admissionCase{
		{name: "valid", doc: serviceDoc("  selector: {app: web}\n  ports:\n  - {name: http, port: 80, targetPort: http}\n  - {name: https, port: 443, targetPort: 8443, appProtocol: kubernetes.io/h2c}\n")},
		{name: "valid headless without ports", doc: serviceDoc("  clusterIP: None\n")},
		{name: "valid ExternalName", doc: serviceDoc("  type: ExternalName\n  externalName: db.example.com.\n")},
		{name: "no ports", doc: serviceDoc("  selector: {app: web}\n"), line: 6,
			want: []string{`spec.ports: Required value`}},
		{name: "second port without a name", doc: serviceDoc("  ports:\n  - {name: http, port: 80}\n  - {port: 443}\n"), line: 8,
			want: []string{`spec.ports[1].name: Required value`}},
		{name: "duplicate port names", doc: serviceDoc("  ports:\n  - {name: http, port: 80}\n  - {name: http, port: 8080}\n"), line: 8,
			want: []string{`spec.ports[1].name: Duplicate value: "http"`}},
		{name: "port name", doc: serviceDoc("  ports:\n  - {name: HTTP, port: 80}\n"), line: 7,
			want: []string{`spec.ports[0].name: Invalid value: "HTTP": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{name: "port out of range", doc: serviceDoc("  ports:\n  - port: 65536\n"), line: 7,
			// targetPort defaults to port, and is checked too.
			want: []string{`spec.ports[0].port: Invalid value: 65536: must be between 1 and 65535, inclusive`,
				`spec.ports[0].targetPort: Invalid value: 65536: must be between 1 and 65535, inclusive`}},
		{name: "protocol", doc: serviceDoc("  ports:\n  - {port: 80, protocol: HTTP}\n"), line: 7,
			want: []string{`spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`}},
		{name: "duplicate port and protocol", doc: serviceDoc("  ports:\n  - {name: a, port: 80}\n  - {name: b, port: 80, protocol: TCP}\n  - {name: c, port: 80, protocol: UDP}\n"), line: 8,
			want: []string{`spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`}},
		{name: "target port name", doc: serviceDoc("  ports:\n  - {port: 80, targetPort: web_port}\n"), line: 7,
			want: []string{`spec.ports[0].targetPort: Invalid value: "web_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`}},
		{name: "app protocol", doc: serviceDoc("  ports:\n  - {port: 80, appProtocol: \"h2 c\"}\n"), line: 7,
			want: []string{`spec.ports[0].appProtocol: Invalid value: "h2 c": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
		{name: "type", doc: serviceDoc("  type: Internal\n  ports: [{port: 80}]\n"), line: 6,
			want: []string{`spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`}},
		{name: "ExternalName without a name", doc: serviceDoc("  type: ExternalName\n"), line: 6,
			want: []string{`spec.externalName: Required value`}},
		{name: "ExternalName with a cluster IP and a bad name", doc: serviceDoc("  type: ExternalName\n  clusterIP: 10.0.0.1\n  externalName: db_host\n"), line: 6,
			want: []string{`spec.clusterIPs: Forbidden: may not be set for ExternalName services`, `spec.externalName: Invalid value: "db_host": ` + dns1123SubdomainMsg}},
		{name: "headless LoadBalancer", doc: serviceDoc("  type: LoadBalancer\n  clusterIP: None\n  ports: [{port: 80}]\n"), line: 6,
			want: []string{`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for LoadBalancer services`}},
		{name: "session affinity", doc: serviceDoc("  sessionAffinity: Sticky\n  ports: [{port: 80}]\n"), line: 6,
			want: []string{`spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"`}},
		{name: "affinity config without affinity", doc: serviceDoc("  sessionAffinityConfig: {clientIP: {timeoutSeconds: 60}}\n  ports: [{port: 80}]\n"), line: 6,
			want: []string{`spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None`}},
		{name: "affinity timeout", doc: serviceDoc("  sessionAffinity: ClientIP\n  sessionAffinityConfig: {clientIP: {timeoutSeconds: 0}}\n  ports: [{port: 80}]\n"), line: 7,
			want: []string{`spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400`}},
		{name: "node port on ClusterIP", doc: serviceDoc("  ports: [{port: 80, nodePort: 30080}]\n"), line: 6,
			want: []string{`spec.ports[0].nodePort: Forbidden: may not be used when ` + "`type` is 'ClusterIP'"}},
		{name: "duplicate node ports", doc: serviceDoc("  type: NodePort\n  ports:\n  - {name: a, port: 80, nodePort: 30080}\n  - {name: b, port: 81, nodePort: 30080}\n"), line: 9,
			want: []string{`spec.ports[1].nodePort: Duplicate value: 30080`}},
		{name: "external IPs", doc: serviceDoc("  ports: [{port: 80}]\n  externalIPs: [127.0.0.1, 10.0.0.256]\n"), line: 7,
			want: []string{`spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
				`spec.externalIPs[1]: Invalid value: "10.0.0.256": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{name: "selector label", doc: serviceDoc("  selector: {app: \"web app\"}\n  ports: [{port: 80}]\n"), line: 6,
			want: []string{`spec.selector: Invalid value: "web app": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{name: "source ranges without a load balancer", doc: serviceDoc("  ports: [{port: 80}]\n  loadBalancerSourceRanges: [10.0.0.0/8]\n"), line: 6,
			want: []string{"spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"}},
		{name: "external traffic policy on ClusterIP", doc: serviceDoc("  ports: [{port: 80}]\n  externalTrafficPolicy: Local\n"), line: 7,
			want: []string{`spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`}},
		{name: "internal traffic policy", doc: serviceDoc("  ports: [{port: 80}]\n  internalTrafficPolicy: Zone\n"), line: 7,
			want: []string{`spec.internalTrafficPolicy: Unsupported value: "Zone": supported values: "Cluster", "Local"`}},
	})
}

// sliceDoc is an EndpointSlice with body after its metadata (line 6 on).
func sliceDoc(body string) string {
	return "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: web-1\n  labels: {kubernetes.io/service-name: web}\n" + body
}

// TestEndpointSliceAdmission covers ValidateEndpointSliceCreate.
func TestEndpointSliceAdmission(t *testing.T) {
	runAdmissionCases(t, []admissionCase{
		{name: "valid", doc: sliceDoc("addressType: IPv4\nendpoints:\n- addresses: [10.0.0.1]\n  hostname: pod-1\nports:\n- {name: http, port: 8080}\n- {name: \"\", port: 8081}\n")},
		{name: "valid loopback (not refused, see builtin/validate_endpoints.go)", doc: sliceDoc("addressType: IPv4\nendpoints:\n- addresses: [127.0.0.1]\n")},
		{name: "valid IPv6", doc: sliceDoc("addressType: IPv6\nendpoints:\n- addresses: [\"fd00::1\"]\n")},
		{name: "address type", doc: sliceDoc("addressType: IP\n"), line: 6,
			want: []string{`addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"`}},
		{name: "no address type", doc: sliceDoc("endpoints: []\n"), line: 1,
			want: []string{`addressType: Required value`}},
		{name: "IPv4 addresses", doc: sliceDoc("addressType: IPv4\nendpoints:\n- addresses: [\"fd00::1\", 10.0.0.300]\n"), line: 8,
			want: []string{`endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address`,
				`endpoints[0].addresses[1]: Invalid value: "10.0.0.300": must be a valid IPv4 address`}},
		{name: "IPv6 address", doc: sliceDoc("addressType: IPv6\nendpoints:\n- addresses: [10.0.0.1]\n"), line: 8,
			want: []string{`endpoints[0].addresses[0]: Invalid value: "10.0.0.1": must be a valid IPv6 address`}},
		{name: "endpoint without addresses", doc: sliceDoc("addressType: IPv4\nendpoints:\n- addresses: []\n"), line: 8,
			want: []string{`endpoints[0].addresses: Required value: must contain at least 1 address`}},
		{name: "hostname", doc: sliceDoc("addressType: IPv4\nendpoints:\n- addresses: [10.0.0.1]\n  hostname: Pod.1\n"), line: 9,
			want: []string{`endpoints[0].hostname: Invalid value: "Pod.1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{name: "duplicate port names", doc: sliceDoc("addressType: IPv4\nports:\n- {name: http, port: 80}\n- {name: http, port: 81}\n"), line: 9,
			want: []string{`ports[1].name: Duplicate value: "http"`}},
		{name: "two unnamed ports", doc: sliceDoc("addressType: IPv4\nports:\n- {port: 80}\n- {port: 81}\n"), line: 9,
			want: []string{`ports[1].name: Duplicate value: ""`}},
		{name: "port protocol", doc: sliceDoc("addressType: IPv4\nports:\n- {name: http, port: 80, protocol: HTTP}\n"), line: 8,
			want: []string{`ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`}},
		{name: "FQDN address", doc: sliceDoc("addressType: FQDN\nendpoints:\n- addresses: [db]\n"), line: 8,
			want: []string{`endpoints[0].addresses[0]: Invalid value: "db": should be a domain with at least two segments separated by dots`}},
	})
}

// TestEndpointsAdmission covers ValidateEndpointsCreate.
func TestEndpointsAdmission(t *testing.T) {
	doc := func(subsets string) string {
		return "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: web\nsubsets:\n" + subsets
	}
	runAdmissionCases(t, []admissionCase{
		{name: "valid", doc: doc("- addresses: [{ip: 10.0.0.1, hostname: pod-1}]\n  notReadyAddresses: [{ip: \"fd00::1\"}]\n  ports: [{name: http, port: 80}, {name: https, port: 443}]\n")},
		{name: "subset without addresses", doc: doc("- ports: [{port: 80}]\n"), line: 6,
			want: []string{"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`"}},
		{name: "address", doc: doc("- addresses: [{ip: not-an-ip}]\n"), line: 6,
			want: []string{`subsets[0].addresses[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{name: "second port without a name", doc: doc("- addresses: [{ip: 10.0.0.1}]\n  ports: [{name: http, port: 80}, {port: 0}]\n"), line: 7,
			want: []string{`subsets[0].ports[1].name: Required value`, `subsets[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive`}},
	})
}

// secretDoc is a Secret with body after its metadata (line 5 on).
func secretDoc(body string) string {
	return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n" + body
}

// TestSecretAdmission covers ValidateSecret and ValidateConfigMap.
func TestSecretAdmission(t *testing.T) {
	runAdmissionCases(t, []admissionCase{
		{name: "valid", doc: secretDoc("type: kubernetes.io/basic-auth\nstringData: {username: u}\n")},
		{name: "valid docker config", doc: secretDoc("type: kubernetes.io/dockerconfigjson\nstringData:\n  .dockerconfigjson: '{\"auths\": {}}'\n")},
		{name: "TLS without a certificate (not refused, see builtin/validate_secret.go)", doc: secretDoc("type: kubernetes.io/tls\nstringData: {tls.key: k}\n")},
		{name: "data key", doc: secretDoc("data:\n  ok: YQ==\n  \"bad key\": YQ==\n"), line: 7,
			want: []string{`data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`}},
		{name: "stringData key", doc: secretDoc("stringData:\n  ..hidden: x\n"), line: 6,
			want: []string{`data[..hidden]: Invalid value: "..hidden": must not start with '..'`}},
		{name: "docker config missing", doc: secretDoc("type: kubernetes.io/dockerconfigjson\ndata: {}\n"), line: 6,
			want: []string{`data[.dockerconfigjson]: Required value`}},
		{name: "docker config not JSON", doc: secretDoc("type: kubernetes.io/dockercfg\nstringData:\n  .dockercfg: 'secret-token'\n"), line: 7,
			want: []string{`data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character 's' looking for beginning of value`}},
		{name: "basic auth without either key", doc: secretDoc("type: kubernetes.io/basic-auth\ndata: {other: YQ==}\n"), line: 6,
			want: []string{`data[username]: Required value`, `data[password]: Required value`}},
		{name: "ssh key empty", doc: secretDoc("type: kubernetes.io/ssh-auth\nstringData: {ssh-privatekey: \"\"}\n"), line: 6,
			want: []string{`data[ssh-privatekey]: Required value`}},
		{name: "service account token without its account", doc: secretDoc("type: kubernetes.io/service-account-token\n"), line: 4,
			want: []string{`metadata.annotations[kubernetes.io/service-account.name]: Required value`}},
		{name: "config map key in both", doc: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: x\nbinaryData:\n  a: eA==\n", line: 6,
			want: []string{`data[a]: Invalid value: "a": duplicate of key present in binaryData`}},
	})
}

// TestMetadataAdmission covers the metadata rules every object gets.
func TestMetadataAdmission(t *testing.T) {
	doc := func(meta string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n" + meta
	}
	runAdmissionCases(t, []admissionCase{
		{name: "valid", doc: doc("  name: conf\n  labels: {app: web, example.com/tier: front}\n  annotations: {example.com/note: anything goes}\n  finalizers: [example.com/keep]\n")},
		{name: "valid upper-case name (see anyCase)", doc: doc("  name: providedBackend\n")},
		{name: "name", doc: doc("  name: my_conf\n"), line: 4,
			want: []string{`metadata.name: Invalid value: "my_conf": ` + dns1123SubdomainMsg}},
		{name: "no name", doc: doc("  labels: {app: web}\n"), line: 4,
			want: []string{`metadata.name: Required value: name or generateName is required`}},
		{name: "generateName only", doc: doc("  generateName: conf-\n"), line: 4,
			want: []string{`metadata.name: Required value: generateName needs an API server to pick the name; give the object a name`}},
		{name: "bad generateName", doc: doc("  name: conf\n  generateName: conf_\n"), line: 5,
			want: []string{`metadata.generateName: Invalid value: "conf_": ` + dns1123SubdomainMsg}},
		{name: "namespace", doc: doc("  name: conf\n  namespace: Team\n"), line: 5,
			want: []string{`metadata.namespace: Invalid value: "Team": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{name: "label key", doc: doc("  name: conf\n  labels: {\"app name\": web}\n"), line: 5,
			want: []string{`metadata.labels: Invalid value: "app name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
		{name: "label value", doc: doc("  name: conf\n  labels: {app: -web}\n"), line: 5,
			want: []string{`metadata.labels: Invalid value: "-web": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{name: "annotation key", doc: doc("  name: conf\n  annotations: {\"/note\": x}\n"), line: 5,
			want: []string{`metadata.annotations: Invalid value: "/note": prefix part must be non-empty`}},
		{name: "annotations too large", doc: doc("  name: conf\n  annotations: {big: " + strings.Repeat("x", 256*1024) + "}\n"), line: 5,
			want: []string{`metadata.annotations: Too long: may not be more than 262144 bytes`}},
		{name: "finalizer", doc: doc("  name: conf\n  finalizers: [\"keep me\"]\n"), line: 5,
			want: []string{`metadata.finalizers: Invalid value: "keep me": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
	})
}

// TestAdmissionOfValidObjectsAllocatesNothing checks that the rules cost a
// valid object no allocation: they run on every object of every load.
func TestAdmissionOfValidObjectsAllocatesNothing(t *testing.T) {
	docs := []string{
		ingressDoc("  ingressClassName: contour\n  tls:\n  - hosts: [\"*.example.com\", web.example.com]\n    secretName: tls\n  rules:\n" +
			"  - host: \"*.example.com\"\n    http:\n      paths:\n      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}\n" +
			"      - {path: /api, pathType: Exact, backend: {service: {name: api, port: {number: 8080}}}}\n"),
		serviceDoc("  type: LoadBalancer\n  selector: {app: web}\n  externalIPs: [192.0.2.10]\n  externalTrafficPolicy: Local\n  healthCheckNodePort: 30999\n" +
			"  ports:\n  - {name: http, port: 80, targetPort: http, nodePort: 30080}\n  - {name: https, port: 443, targetPort: 8443, appProtocol: kubernetes.io/h2c}\n"),
		sliceDoc("addressType: IPv4\nendpoints:\n- addresses: [10.0.0.1]\n  hostname: pod-1\n- addresses: [10.0.0.2]\nports:\n- {name: http, port: 8080, appProtocol: http}\n- {name: https, port: 8443}\n"),
		secretDoc("type: kubernetes.io/tls\nstringData: {tls.crt: c, tls.key: k, ca.crt: a}\n"),
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  labels: {app: web, example.com/tier: front}\n  annotations: {Example.com/Note: x, kubernetes.io/ingress.class: contour}\n" +
			"data: {a: x, b.yaml: y}\nbinaryData: {c: eA==}\n",
	}
	for _, doc := range docs {
		res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(doc)})
		if err != nil {
			t.Fatal(err)
		}
		o := res.Objects[0]
		spec := kindsByGroupKind[groupKind{o.Obj.(interface{ GetObjectKind() schema.ObjectKind }).GetObjectKind().GroupVersionKind().Group, o.Kind}]
		allocs := testing.AllocsPerRun(100, func() {
			if errs := append(validateMeta(o.Obj, spec), spec.validate(o.Obj)...); len(errs) > 0 {
				t.Fatal(errs)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations to admit a valid object, want 0", o.Kind, allocs)
		}
	}
	// Endpoints come out of Load mirrored: their rule is run directly.
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{
		Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1", Hostname: "pod-1"}, {IP: "fd00::1"}},
		Ports:     []corev1.EndpointPort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}, {Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}},
	}}}
	if allocs := testing.AllocsPerRun(100, func() { _ = builtin.ValidateEndpoints(ep) }); allocs != 0 {
		t.Errorf("Endpoints: %v allocations to admit valid ones, want 0", allocs)
	}
}
