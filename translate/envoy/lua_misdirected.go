package envoy

// misdirectedRequestLua is the default_source_code of the Lua HTTP filter
// that Contour puts first on every per-SNI HTTPS connection manager.
//
// HTTP/2 (and HTTP/1.1 keep-alive) clients may reuse a TLS connection for
// another host whose certificate also matches. Each SNI filter chain only
// serves the virtual host it was selected for, so a request whose host is
// not the connection's SNI gets 421 Misdirected Request (RFC 9110 15.5.20),
// telling the client to open a new connection.
//
// Behaviour reproduced from Contour: the :authority header is lower-cased,
// a trailing ":port" is removed, and the result is compared with the TLS
// server name Envoy recorded for the connection (requestedServerName(),
// empty when the client sent no SNI); any difference answers 421.
//
// Deviation (edge cases only): Contour cuts the host at the first ':' while
// this script removes only a trailing ":<digits>", so an IPv6 literal like
// "[::1]:8443" becomes "[::1]" instead of "[". Either way such a host never
// equals an SNI name, so the response is the same 421. A request without
// :authority (impossible after Envoy's codec validation) is treated as an
// empty host instead of raising a script error.
const misdirectedRequestLua = `
-- contourc: reject requests whose host is not this connection's TLS SNI.
local function request_host(headers)
  local authority = headers:get(":authority")
  if authority == nil then
    return ""
  end
  local host = string.lower(authority)
  -- Remove a trailing ":port"; bracketed IPv6 literals keep their colons.
  host = string.gsub(host, ":%d*$", "")
  return host
end

function envoy_on_request(request_handle)
  local host = request_host(request_handle:headers())
  local sni = request_handle:streamInfo():requestedServerName() or ""
  if host ~= sni then
    request_handle:respond(
      {[":status"] = "421"},
      "misdirected request to " .. string.format("%q", host))
  end
end
`
