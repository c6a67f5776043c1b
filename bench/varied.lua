-- wrk script: varied traffic, made on the fly, as a real site's arrives
-- (issue 50's load): 20,000 paths, a few of them popular; 500 referrers
-- and direct visits; a tenth of the views with utm_ campaign parameters;
-- 12 browsers; 200,000 visitors (X-Forwarded-For from a trusted proxy),
-- each with a country (CF-IPCountry); a tenth custom events with a
-- property. Each thread draws from its own seed, so a run is repeatable.
--
-- VARIED_TARGET=goatcounter sends the same traffic to GoatCounter's
-- /count (GET, the page in p=, events with e=true) instead of our
-- POST /analytics/collect; VARIED_HOST is the site's host in the page
-- addresses (127.0.0.1:18080).
local target = os.getenv("VARIED_TARGET") or "groundwork"
local host = os.getenv("VARIED_HOST") or "127.0.0.1:18080"

local browsers = {
	"Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36 Edg/129.0.0.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:131.0) Gecko/20100101 Firefox/131.0",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36 OPR/114.0.0.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36 Vivaldi/6.9",
}
local countries = {"US", "DE", "GB", "FR", "IN", "BR", "JP", "NL", "CA", "AU", "ES", "IT", "PL", "SE", "MX", "NG", "ZA", "KR", "ID", "TR"}
local mediums = {"email", "cpc", "social", "newsletter", "affiliate"}
local events = {"signup", "download", "add_to_cart", "search", "share"}
local plans = {"free", "pro", "team", "enterprise"}

local function esc(s)
	return (s:gsub("[^%w%-%._~/]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

-- skewed draws 0..n-1 with the low numbers far more often, as popular
-- pages and referrers are.
local function skewed(n)
	local r = math.random()
	return math.floor(n * r * r * r)
end

local thread = 0
setup = function(t)
	thread = thread + 1
	t:set("seed", thread)
end

init = function()
	math.randomseed(1000 + (seed or 1))
end

request = function()
	local path = "/p/" .. skewed(20000)
	local title = "Page " .. path
	local referrer = ""
	local r = math.random(10)
	if r <= 6 then
		referrer = "https://ref" .. skewed(500) .. ".example/from/" .. math.random(50)
	end
	local query = ""
	if math.random(10) == 1 then
		query = "?utm_source=news" .. math.random(20) .. "&utm_medium=" .. mediums[math.random(#mediums)] ..
			"&utm_campaign=spring" .. math.random(30)
	end
	local visitor = math.random(200000)
	local headers = {}
	headers["User-Agent"] = browsers[1 + visitor % #browsers]
	headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.floor(visitor / 65536) % 256, math.floor(visitor / 256) % 256, visitor % 256)
	headers["CF-IPCountry"] = countries[1 + visitor % #countries]
	local event = nil
	if math.random(10) == 1 then
		event = events[math.random(#events)]
	end
	if target == "goatcounter" then
		local p = event or path .. query
		local q = "/count?p=" .. esc(p) .. "&t=" .. esc(title) .. "&r=" .. esc(referrer)
		if event then
			q = q .. "&e=true"
		end
		return wrk.format("GET", q, headers, nil)
	end
	headers["Content-Type"] = "text/plain;charset=UTF-8"
	local body
	if event then
		body = '{"name":"' .. event .. '","url":"http://' .. host .. path .. '","props":{"plan":"' .. plans[math.random(#plans)] .. '"}}'
	else
		body = '{"name":"pageview","url":"http://' .. host .. path .. query .. '","title":"' .. title .. '","referrer":"' .. referrer .. '"}'
	end
	return wrk.format("POST", nil, headers, body)
end
