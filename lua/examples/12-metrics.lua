-- linerate.metrics{listen = "[ADDR:]PORT", linger = S}: serve Prometheus
-- metrics at http://ADDR:PORT/metrics (port 0: a free one; the URL is
-- returned). Scrapes are answered while the script waits or sleeps
-- (linerate.wait, task:wait, linerate.sleep); linger keeps the server up
-- after the script, until a scrape has read the final counts, at most S s.
-- linerate.metrics() gives the URL and the scrapes answered so far.
linerate.live(false)
local url = assert(linerate.metrics{ listen = "127.0.0.1:0", linger = 0 })
print("metrics at", url)

local a, b = assert(linerate.wire("ex12"))
local rx = assert(linerate.task{ role = "rx", port = b, flows = 4 })
local gen = assert(linerate.task{ role = "gen", port = a, flows = 4, count = 2000,
                                  rate = 10000 })
-- A scraper of our own (curl in the background): it is answered while
-- this script sleeps, on the main lcore; a blocking call here would keep
-- it waiting.
local body = os.tmpname()
os.execute(("curl -s -m 5 -o %s %s &"):format(body, url))
linerate.start()
assert(gen:wait(30))
rx:wait{ idle = 0.2, timeout = 10 }
linerate.sleep(0.5)
linerate.stop()

local text = assert(io.open(body)):read("a")
local got = text:match('linerate_tx_packets_total{role="gen",port="net_ring_ex12a"'
                       .. ',queue="0",task="1"} (%d+)')
print(("scraped %d bytes; gen's tx_packets there: %s; scrapes answered: %d"):format(
	#text, got, select(2, linerate.metrics())))
assert(text:find("# TYPE linerate_rx_latency_seconds histogram", 1, true))
