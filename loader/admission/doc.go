// Package admission admits custom resources as kube-apiserver's
// apiextensions code does on create, with that code
// (k8s.io/apiextensions-apiserver): against the CRDs of the pinned Gateway
// API and Contour modules, embedded in crds.json.gz by go generate.
package admission

//go:generate go run ./gen
