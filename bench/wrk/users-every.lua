-- GET /v1/users/user-{i}/flags/promo-banner for i = 0 … USERS-1, each once, then stop: after a cold start every
-- recovered user has been read (and so decoded) once, for the resident memory of a store whose users are all in use.
local counter = -1
local users = tonumber(os.getenv("USERS") or "1000000")
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/users/user-" .. (counter % users) .. "/flags/promo-banner")
end
response = function(status, headers, body)
  if counter >= users then wrk.thread:stop() end
end
