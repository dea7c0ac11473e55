-- POST /v1/users/{u}/events/appStarted spread over 10 000 users.
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/v1/users/user-" .. (counter % 10000) .. "/events/appStarted", {["X-App-Version"] = "1.2"})
end
