-- Behaviour of misdirectedRequestLua (translate/lua_misdirected.go).
local cases = {
  { authority = "example.com", sni = "example.com", status = nil },
  { authority = "Example.COM:8443", sni = "example.com", status = nil },
  { authority = "example.com:443", sni = "example.com", status = nil },
  { authority = "other.example.com", sni = "example.com", status = "421" },
  { authority = "example.com", sni = "", status = "421" },
  { authority = "[::1]:8443", sni = "", status = "421" },
}
for i, c in ipairs(cases) do
  local h = new_handle(new_headers({ { ":authority", c.authority } }), c.sni, nil)
  envoy_on_request(h)
  local got = h.responded and h.responded.headers[":status"] or nil
  expect_equal(got, c.status, string.format("case %d (%s vs SNI %q)", i, c.authority, c.sni))
end
print("ok")
