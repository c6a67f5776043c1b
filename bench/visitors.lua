-- wrk script: POST page views, each from a new visitor (X-Forwarded-For
-- from a trusted proxy) on one of 200 pages: every view starts a session.
-- VARIED_TARGET=goatcounter (bench/goatcounter-load.sh sets it) sends the
-- same views to GoatCounter's /count (GET, the page in p=).
local target = os.getenv("VARIED_TARGET") or "groundwork"
local n = 0
request = function()
	n = n + 1
	local headers = {}
	headers["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"
	headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
	if target == "goatcounter" then
		return wrk.format("GET", "/count?p=%2Fp%2F" .. (n % 200) .. "&t=Page&r=https%3A%2F%2Fsearch.example%2F", headers, nil)
	end
	local body = '{"name":"pageview","url":"http://127.0.0.1:18080/p/' .. (n % 200) .. '","title":"Page","referrer":"https://search.example/"}'
	headers["Content-Type"] = "text/plain;charset=UTF-8"
	return wrk.format("POST", nil, headers, body)
end
