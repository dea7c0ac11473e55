-- POST /ofrep/v1/evaluate/flags/{key} with contexts spread over 10 000 targeting keys; the key is OFREP_FLAG's
-- (fractional-flag-shorthand, a flag of the flagd testbed's rules, by default).
local counter = 0
local path = "/ofrep/v1/evaluate/flags/" .. (os.getenv("OFREP_FLAG") or "fractional-flag-shorthand")
request = function()
  counter = counter + 1
  local body = '{"context":{"targetingKey":"user-' .. (counter % 10000) .. '","email":"user@example.com"}}'
  return wrk.format("POST", path, {["Content-Type"] = "application/json"}, body)
end
