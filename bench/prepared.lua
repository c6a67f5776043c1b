-- wrk script: a set of page views made once and sent over and over, the
-- issue 50 "prepared" load: 2,000 paths (a few popular, a long tail), 20
-- referrers and 50,000 visitors (X-Forwarded-For from a trusted proxy),
-- so a batch repeats pages and visitors as a busy site's does, at little
-- cost to wrk. VARIED_TARGET=goatcounter (bench/goatcounter-load.sh sets
-- it) sends the same views to GoatCounter's /count (GET, the page in p=).
local target = os.getenv("VARIED_TARGET") or "groundwork"
local set = {}
local size = 10000
init = function(args)
	math.randomseed(50)
	for i = 1, size do
		local path = "/p/" .. math.floor(2000 * math.random() ^ 3)
		local visitor = math.random(50000)
		local headers = {}
		headers["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"
		headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.floor(visitor / 65536) % 256, math.floor(visitor / 256) % 256, visitor % 256)
		local referrer = "https://ref" .. math.random(20) .. ".example/"
		if target == "goatcounter" then
			set[i] = wrk.format("GET", "/count?p=" .. path:gsub("/", "%%2F") .. "&t=Page&r=" .. referrer:gsub(":", "%%3A"):gsub("/", "%%2F"), headers, nil)
		else
			headers["Content-Type"] = "text/plain;charset=UTF-8"
			set[i] = wrk.format("POST", nil, headers, '{"name":"pageview","url":"http://127.0.0.1:18080' .. path ..
				'","title":"Page","referrer":"' .. referrer .. '"}')
		end
	end
end
local n = 0
request = function()
	n = n + 1
	return set[(n % size) + 1]
end
