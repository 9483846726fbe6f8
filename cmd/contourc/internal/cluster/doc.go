// Package cluster makes the objects a cluster has that a repository does
// not: default/kubernetes, the Services of --assume-service, and those a
// --cluster-context dump holds. Translation uses them and never reports
// them as the repository's (translate.Options.Cluster).
package cluster
