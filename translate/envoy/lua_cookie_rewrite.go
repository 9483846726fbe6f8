package envoy

// cookieRewriteLua is the "cookie_rewrite.lua" entry of the Lua filter's
// source_codes. Routes (or weighted clusters) with HTTPProxy
// cookieRewritePolicies select it with a LuaPerRoute whose filter_context
// is {"cookie_rewrite_rules": {<cookie name>: {Path?, Domain?, SameSite?,
// Secure?}}}; the route builder produces that context.
//
// Behaviour reproduced from Contour's cookie rewriting: on the response,
// every Set-Cookie header whose cookie name has a rule is rebuilt:
// Path/Domain/SameSite replace the attribute of that name (or add it),
// Secure=true adds the Secure flag and Secure=false removes it; all other
// attributes are kept. Cookies without a rule, and routes without the
// filter context, are left untouched. This script keeps the original
// attribute order (Contour's order is unspecified) and matches attribute
// names case-insensitively.
const cookieRewriteLua = `
-- contourc: rewrite Set-Cookie attributes per route (cookie_rewrite_rules).
local function trim(s)
  return (string.gsub(s, "^%s*(.-)%s*$", "%1"))
end

-- overrides maps a lower-cased attribute name to its replacement text, or
-- to false when the attribute must be removed.
local function attribute_overrides(rule)
  local o = {}
  if rule.Path ~= nil then o["path"] = "Path=" .. tostring(rule.Path) end
  if rule.Domain ~= nil then o["domain"] = "Domain=" .. tostring(rule.Domain) end
  if rule.SameSite ~= nil then o["samesite"] = "SameSite=" .. tostring(rule.SameSite) end
  if rule.Secure == true then
    o["secure"] = "Secure"
  elseif rule.Secure == false then
    o["secure"] = false
  end
  return o
end

local function rewrite_set_cookie(value, rules)
  local parts = {}
  for part in string.gmatch(value, "[^;]+") do
    part = trim(part)
    if part ~= "" then
      parts[#parts + 1] = part
    end
  end
  local pair = parts[1]
  if pair == nil then
    return value
  end
  local eq = string.find(pair, "=", 1, true)
  if eq == nil then
    return value
  end
  local rule = rules[trim(string.sub(pair, 1, eq - 1))]
  if type(rule) ~= "table" then
    return value
  end

  local overrides = attribute_overrides(rule)
  local out = { pair }
  local applied = {}
  for i = 2, #parts do
    local attr = parts[i]
    local key = string.lower(trim(string.match(attr, "^[^=]*")))
    local replacement = overrides[key]
    if replacement == nil then
      out[#out + 1] = attr
    elseif not applied[key] then
      applied[key] = true
      if replacement then
        out[#out + 1] = replacement
      end
    end
  end
  for _, key in ipairs({ "path", "domain", "samesite", "secure" }) do
    local replacement = overrides[key]
    if replacement and not applied[key] then
      out[#out + 1] = replacement
    end
  end
  return table.concat(out, "; ")
end

function envoy_on_response(response_handle)
  local rules = response_handle:filterContext():get("` + hcmCookieRewriteRulesKey + `")
  if rules == nil then
    return
  end
  local headers = response_handle:headers()
  if headers:get("set-cookie") == nil then
    return
  end
  -- Headers cannot change while being iterated: collect, then replace.
  local cookies = {}
  for name, value in pairs(headers) do
    if name == "set-cookie" then
      cookies[#cookies + 1] = rewrite_set_cookie(value, rules)
    end
  end
  headers:remove("set-cookie")
  for _, cookie in ipairs(cookies) do
    headers:add("set-cookie", cookie)
  end
end
`
