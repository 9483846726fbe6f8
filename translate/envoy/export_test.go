package envoy

// What the external tests (package envoy_test, which translate through
// translate.Translate) read of the package.

const HCMFilterNameForTest = listenerHCMFilterName

var (
	XdsConfigSourceForTest             = xdsConfigSource
	AdsConfigSourceForTest             = adsConfigSource
	SharedRouterFilterForTest          = sharedRouterFilter
	MisdirectedRequestLuaFilterForTest = misdirectedRequestLuaFilter
	AuthzDisabledForTest               = authzDisabled
	HttpsRedirectForTest               = httpsRedirect
	RedirectFilterConfigForTest        = redirectFilterConfig
)

// MustAnyForTest is mustAny, which packs as the builders do.
var MustAnyForTest = mustAny
