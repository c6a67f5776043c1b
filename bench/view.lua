-- wrk script: POST one page view, as the collect script's sendBeacon does.
wrk.method = "POST"
wrk.body = '{"name":"pageview","url":"http://127.0.0.1:18080/shoes","title":"Shoes","referrer":"https://search.example/"}'
wrk.headers["Content-Type"] = "text/plain;charset=UTF-8"
wrk.headers["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"
