-- Behaviour of cookieRewriteLua (translate/envoy_listener.go).
local function run(set_cookies, context)
  local list = { { ":status", "200" }, { "content-type", "text/plain" } }
  for _, c in ipairs(set_cookies) do
    list[#list + 1] = { "set-cookie", c }
  end
  local headers = new_headers(list)
  envoy_on_response(new_handle(headers, "", context))
  return headers
end

local function expect_cookies(headers, want, what)
  local got = headers:all("set-cookie")
  expect_equal(#got, #want, what .. ": number of set-cookie headers")
  for i = 1, #want do
    expect_equal(got[i], want[i], what .. ": set-cookie #" .. i)
  end
  expect_equal(headers:get("content-type"), "text/plain", what .. ": other headers kept")
end

-- No filter context: nothing changes.
expect_cookies(run({ "a=1; Path=/" }, nil), { "a=1; Path=/" }, "no context")

-- Rules for another cookie: untouched.
local rules = { cookie_rewrite_rules = { session = { Path = "/app", Secure = true } } }
expect_cookies(run({ "other=1; Path=/" }, rules), { "other=1; Path=/" }, "other cookie")

-- Path replaced in place, Secure added, other attributes and cookies kept.
expect_cookies(run({ "session=abc; Path=/; HttpOnly", "other=1; Path=/" }, rules),
  { "session=abc; Path=/app; HttpOnly; Secure", "other=1; Path=/" }, "path and secure")

-- Secure=false removes the flag; Domain replaced.
expect_cookies(run({ "id=1; Secure; Domain=old.example.com" },
  { cookie_rewrite_rules = { id = { Domain = "new.example.com", Secure = false } } }),
  { "id=1; Domain=new.example.com" }, "secure off, domain")

-- SameSite added when absent.
expect_cookies(run({ "x=y" }, { cookie_rewrite_rules = { x = { SameSite = "Strict" } } }),
  { "x=y; SameSite=Strict" }, "samesite added")

-- Values may contain '='; attribute names match case-insensitively.
expect_cookies(run({ "tok=a=b; path=/old; Max-Age=10" },
  { cookie_rewrite_rules = { tok = { Path = "/p" } } }),
  { "tok=a=b; Path=/p; Max-Age=10" }, "value with =")

-- Several rules at once.
expect_cookies(run({ "a=1", "b=2; Secure" },
  { cookie_rewrite_rules = { a = { Domain = "a.example" }, b = { Secure = false, Path = "/b" } } }),
  { "a=1; Domain=a.example", "b=2; Path=/b" }, "several rules")

-- No set-cookie header at all.
expect_cookies(run({}, rules), {}, "no cookies")
print("ok")
