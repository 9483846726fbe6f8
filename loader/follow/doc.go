// Package follow is the engine that follows GitOps entry points. In a Flux
// or Argo CD repository the routing objects are not all read from where
// they lie: Kustomizations (kustomize.toolkit.fluxcd.io) and Applications
// (argoproj.io) say which path the cluster's tool builds, into which
// namespace, with which variables. A Follower knows one tool's entry
// points (loader/flux, loader/argocd); the engine finds them among the
// loaded objects, builds each once per set of options (Entry.Key), has
// the load decode what it built like any build's objects, and looks for
// more entry points in that, round after round, until none is new. Each
// object built keeps the entry that built it in its Source
// (Source.Entry), so that messages read
// "clusters/prod/apps.yaml:14 Kustomization flux-system/apps →
// apps/web/proxy.yaml:3 HTTPProxy web/web: ...".
//
// What a followed entry builds replaces what the plain walk read from the
// same place: the files under an entry's Covers (its path) and the files
// its build read are left out of the walk's own reading (Result.Covered),
// their kustomizations are not built as plain ones, and their warnings go
// with them. An object reached twice identically (by the walk and an
// entry, or by two entries) is one object (DropIdentical); reached twice
// differently, it is defined more than once, as it would be for two files.
//
// Decoding a build is the load again, so the engine does not import
// package loader: loader hands itself in as a Load, and keeps this
// package's types as its API (loader.Entry, loader.Built, ...).
package follow
