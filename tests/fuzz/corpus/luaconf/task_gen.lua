local t = linerate.task{role = "gen", port = "fzla", rate = "1G", size = 64,
	src_ip = "10.0.0.1-10.0.0.9", dst_port = "1000-2000", count = 1e6,
	duration = 2.5}
assert(t == true)
