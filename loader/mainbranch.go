package loader

import "github.com/contourc/contourc/loader/mainbranch"

// The fields of Contour's main branch that its pinned Go types lack are
// read by loader/mainbranch; these names are the loader's API for them.
type (
	// Extensions are an object's main-branch fields (Object.Extensions).
	Extensions = mainbranch.Extensions
	// LocalJWKS is a JWT provider's localJWKS.
	LocalJWKS = mainbranch.LocalJWKS
	// AuthorizationExtensions are the main-branch fields of an
	// authorization server.
	AuthorizationExtensions = mainbranch.AuthorizationExtensions
	// HTTPAuthorizationSettings are an HTTP authorization server's
	// httpSettings.
	HTTPAuthorizationSettings = mainbranch.HTTPAuthorizationSettings
	// AllowedHeader is one header an HTTP authorization server lets
	// through.
	AllowedHeader = mainbranch.AllowedHeader
	// MainBranchField is one use of a main-branch field.
	MainBranchField = mainbranch.Field
)
