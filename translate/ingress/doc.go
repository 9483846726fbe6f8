// Package ingress is the Ingress processor of translate: it turns the
// networking.k8s.io/v1 Ingresses of the object index, with Contour's
// annotations, into the DAG's virtual hosts, secure virtual hosts and
// routes (Processor.Run), and lists an entry for each Ingress in the status
// list (Processor.Statuses). Contour writes no status on an Ingress and
// only logs what it leaves out of one; the processor reports those
// findings as notices and in the Ingress's entry.
//
// translate makes one Processor per translation and calls it between
// building the listeners and freezing the DAG. The package sits below
// translate and beside the other processors: of contourc it imports only
// translate/dag and its index, translate/config (the settings and the
// defaults they apply), translate/internal (the status types), loader and
// the shared helpers of internal/, never translate nor another processor
// (imports_test.go).
package ingress
