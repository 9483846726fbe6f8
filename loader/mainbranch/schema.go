package mainbranch

import "github.com/contourc/contourc/loader/admission"

// The schema of the main-branch fields of extensions.go, added to
// the pinned Contour CRDs (projectcontour.io v1.33) so that admission
// accepts, defaults and validates them as Contour's main-branch CRDs do:
// a JWT provider takes a localJWKS instead of a remoteJWKS (which is no
// longer required: a provider with neither, or both, is reported in
// status, JWKSSourceMissing and JWKSSourceConflict), and an authorization
// server has a serviceType (grpc by default) and httpSettings.
func init() {
	admission.Extend(admission.Extension{
		Group: "projectcontour.io", Kind: "HTTPProxy", At: "spec.virtualhost.jwtProviders[]",
		Properties: `{"localJWKS": ` + localJWKSSchema + `}`,
		Required:   []string{"name"},
	})
	admission.Extend(admission.Extension{
		Group: "projectcontour.io", Kind: "HTTPProxy", At: "spec.virtualhost.authorization",
		Properties: authorizationSchema,
	})
	admission.Extend(admission.Extension{
		Group: "projectcontour.io", Kind: "ContourConfiguration", At: "spec.globalExtAuth",
		Properties: authorizationSchema,
	})
}

const localJWKSSchema = `{
	"type": "object",
	"required": ["secretName", "key"],
	"properties": {
		"secretName": {"type": "string", "minLength": 1},
		"key": {"type": "string", "minLength": 1}
	}
}`

// headerMatcherSchema is one allowed header: exactly one of the four
// matchers should be set, which Contour checks (AuthBadAllowedHeader).
const headerMatcherSchema = `{
	"type": "object",
	"properties": {
		"exact": {"type": "string"},
		"prefix": {"type": "string"},
		"suffix": {"type": "string"},
		"contains": {"type": "string"},
		"ignoreCase": {"type": "boolean"}
	}
}`

const authorizationSchema = `{
	"serviceType": {"type": "string", "enum": ["http", "grpc"], "default": "grpc"},
	"httpSettings": {
		"type": "object",
		"properties": {
			"pathPrefix": {"type": "string"},
			"allowedAuthorizationHeaders": {"type": "array", "items": ` + headerMatcherSchema + `},
			"allowedUpstreamHeaders": {"type": "array", "items": ` + headerMatcherSchema + `}
		}
	}
}`
