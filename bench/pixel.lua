-- wrk script: the no-JavaScript pixel, GET collect.gif with the page in
-- the Referer, on a new connection each hit (as browsers' image requests
-- from many visitors arrive).
local n = 0
request = function()
	n = n + 1
	local headers = {}
	headers["Connection"] = "close"
	headers["Referer"] = "http://127.0.0.1:18080/p/" .. (n % 200)
	headers["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"
	return wrk.format("GET", "/analytics/collect.gif", headers, nil)
end
