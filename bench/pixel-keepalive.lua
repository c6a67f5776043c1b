-- wrk script: the no-JavaScript pixel on kept-alive connections, one page
-- in the Referer, as bench/view.lua posts one: the pixel's cost a view
-- beside the JSON path's.
wrk.method = "GET"
wrk.path = "/analytics/collect.gif"
wrk.headers["Referer"] = "http://127.0.0.1:18080/shoes"
wrk.headers["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"
