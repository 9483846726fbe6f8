// Package verdict sums up the status Contour writes on an object (an
// HTTPProxy's currentStatus and conditions, Gateway API conditions, an
// Ingress's findings) as the word, the pass or fail and the reasons that
// check's table, render --strict, diff and serve's log report.
package verdict
