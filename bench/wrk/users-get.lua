-- GET /v1/users/{u}/flags/promo-banner spread over 10 000 users.
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/users/user-" .. (counter % 10000) .. "/flags/promo-banner", {["X-App-Version"] = "1.2"})
end
