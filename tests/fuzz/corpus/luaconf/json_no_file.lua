local r = linerate.json({c = 2}, "jw_probe_file")
assert(type(r) == "string", "json wrote a file")
