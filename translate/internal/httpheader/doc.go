// Package httpheader holds the checks and the escaping of HTTP header names
// and values that every processor's header policy applies (HTTPProxy's
// request and response headers, Gateway API's header filters, the
// configuration's default headers): the names the API server accepts, the
// values Envoy refuses, and how a value's "%" and Contour's variables reach
// Envoy. It imports nothing of contourc, so that translate and the
// processors' packages can all import it.
package httpheader
