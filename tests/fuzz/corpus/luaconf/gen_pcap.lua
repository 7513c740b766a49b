pcall(linerate.task, {role = "gen", pcap = "/nonexistent.pcap", loops = 3,
	loop_ip_step = 1, stamp = true, speed = 2.0})
pcall(linerate.task, {role = "rtt", samples = "/tmp/x.csv", interval = "1ms"})
