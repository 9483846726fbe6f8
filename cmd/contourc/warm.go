package main

import (
	"io"
	"runtime"
	"strings"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

// warmManifest is what warmUp renders: the kinds and policies most inputs
// use, valid, so that the translation goes all the way.
const warmManifest = `apiVersion: v1
kind: Service
metadata: {name: app, namespace: warm}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: app-1
  namespace: warm
  labels: {kubernetes.io/service-name: app}
addressType: IPv4
ports: [{name: http, port: 8080, protocol: TCP}]
endpoints: [{addresses: [10.0.0.1], conditions: {ready: true}}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: app, namespace: warm}
spec:
  virtualhost: {fqdn: app.warm.example.com}
  routes:
  - conditions: [{prefix: /api}, {header: {name: x-canary, exact: "true"}}]
    services: [{name: app, port: 80}]
    timeoutPolicy: {response: 30s, idle: 5m}
    retryPolicy: {count: 3, perTryTimeout: 5s}
    requestHeadersPolicy: {set: [{name: x-route, value: canary}]}
    responseHeadersPolicy: {set: [{name: Cache-Control, value: max-age=3600}]}
    pathRewritePolicy: {replacePrefix: [{prefix: /api, replacement: /}]}
  - services: [{name: app, port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: app, namespace: warm}
spec:
  rules:
  - host: ing.warm.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: app, port: {number: 80}}}}]
`

// warmUp renders warmManifest in format, on the side, as a render starts.
//
// A process's first translation and render of anything pay for setting up
// what later ones reuse: protobuf's lazy set-up of each message type,
// the encoder's plans, the shared HTTP filters, the code's first page
// faults. At 100 HTTPProxies that was about 25 ms of a 60 ms run, on the
// one CPU the run was using while it loaded its files. Rendering a small
// manifest on the other CPU meanwhile pays most of it there: `render -o
// yaml` at N=100 is 6-7 ms faster, `-o json` 4 ms, and nothing changes at
// N=5,000. It shares no state with the real render but concurrency-safe
// caches, and its output and errors go nowhere.
func warmUp(format string) {
	if runtime.GOMAXPROCS(0) < 2 {
		return
	}
	go func() { _ = warm(format) }()
}

// warm loads, translates and renders warmManifest in format to io.Discard.
func warm(format string) error {
	loaded, err := loader.Load([]string{"-"}, loader.Options{Stdin: strings.NewReader(warmManifest)})
	if err != nil {
		return err
	}
	res, err := translate.Translate(loaded.Objects, translate.Options{})
	if err != nil {
		return err
	}
	if format == "yaml" {
		return render.Bootstrap(io.Discard, &res.Resources)
	}
	return render.JSON(io.Discard, &res.Resources)
}
