// Package instances translates every Contour instance of the input in one
// run (translate.Instances finds them) and merges the runs' status: each
// row of an object from the instance that serves it, and a NotServed row
// for the Ingresses and HTTPProxies meant for Contour that no instance
// serves.
package instances
