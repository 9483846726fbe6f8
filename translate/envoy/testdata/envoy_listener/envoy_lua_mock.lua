-- Minimal stand-in for the parts of Envoy's Lua stream handle API that
-- contourc's scripts use (headers, streamInfo, filterContext, respond).
-- Loaded before a script under test; a *_spec.lua file follows it.

-- Envoy's LuaJIT honours __pairs (Lua 5.2 compatibility); plain LuaJIT
-- does not, so emulate it.
local raw_pairs = pairs
pairs = function(t)
  local mt = getmetatable(t)
  if mt and mt.__pairs then
    return mt.__pairs(t)
  end
  return raw_pairs(t)
end

local Headers = {}
Headers.__index = Headers
Headers.__pairs = function(self)
  local i = 0
  local snapshot = {}
  for _, e in ipairs(self.entries) do
    snapshot[#snapshot + 1] = e
  end
  return function()
    i = i + 1
    local e = snapshot[i]
    if e then
      return e[1], e[2]
    end
  end
end

function Headers:get(name)
  local values = {}
  for _, e in ipairs(self.entries) do
    if e[1] == name then
      values[#values + 1] = e[2]
    end
  end
  if #values == 0 then
    return nil
  end
  return table.concat(values, ",")
end

function Headers:add(name, value)
  self.entries[#self.entries + 1] = { name, value }
end

function Headers:remove(name)
  local kept = {}
  for _, e in ipairs(self.entries) do
    if e[1] ~= name then
      kept[#kept + 1] = e
    end
  end
  self.entries = kept
end

function Headers:all(name)
  local values = {}
  for _, e in ipairs(self.entries) do
    if e[1] == name then
      values[#values + 1] = e[2]
    end
  end
  return values
end

function new_headers(list)
  local h = setmetatable({ entries = {} }, Headers)
  for _, e in ipairs(list) do
    h:add(e[1], e[2])
  end
  return h
end

-- new_handle returns a stream handle with the given headers, SNI and
-- filter context (a plain table, or nil for a route without one).
function new_handle(headers, sni, filter_context)
  local handle = { hdrs = headers, responded = nil }
  function handle:headers() return self.hdrs end
  function handle:streamInfo()
    return { requestedServerName = function() return sni end }
  end
  function handle:filterContext()
    return { get = function(_, key)
      if filter_context == nil then return nil end
      return filter_context[key]
    end }
  end
  function handle:respond(h, body)
    self.responded = { headers = h, body = body }
  end
  function handle:logDebug() end
  return handle
end

function expect_equal(got, want, what)
  if got ~= want then
    error(string.format("%s: got %q, want %q", what, tostring(got), tostring(want)), 2)
  end
end
