-- POST /ofrep/v1/evaluate/flags/fractional-flag-shorthand with contexts spread over 10 000 targeting keys.
local counter = 0
request = function()
  counter = counter + 1
  local body = '{"context":{"targetingKey":"user-' .. (counter % 10000) .. '","email":"user@example.com"}}'
  return wrk.format("POST", "/ofrep/v1/evaluate/flags/fractional-flag-shorthand", {["Content-Type"] = "application/json"}, body)
end
