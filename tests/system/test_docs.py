#!/usr/bin/env python3
"""Every example of the README and doc/usage.md runs as written.

- Command lines in code blocks (README.md, doc/usage.md): run with this
  machine's EAL set-up added (--no-pci, --no-huge, a file prefix of their
  own). Commands for a NIC (-a PCI) run with net_null in place of port 0;
  long durations are cut to half a second; a memif server gets a peer;
  a port on a kernel interface runs in a network namespace with the veth
  pair its section makes (an rx there gets a sender), and a vhost-user
  port gets its virtio_user peer or server.
- The example column of every option table: each example runs with its
  section's role on a virtual port.
- The option tables and the table of metrics are what `--options-md` and
  `--metrics-md` print from the code's tables.
- The Lua reference's `call --> value` examples give that value; the
  README's Lua snippet runs.
"""
import os
import re
import shlex
import subprocess
import time

from lrtest import LINERATE, SRC, eal, expect, main, run, start, tmpdir, wait_for

DOCS = [os.path.join(SRC, "README.md"), os.path.join(SRC, "doc", "usage.md")]


def code_blocks(path):
    """Indented (4 spaces) blocks of a markdown file, as lists of lines."""
    blocks, cur = [], []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("    ") or (cur and line.strip() == ""):
            cur.append(line[4:])
        else:
            if cur:
                blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    return blocks


def commands(path):
    """linerate command lines of a file, continuation lines joined."""
    out = []
    for block in code_blocks(path):
        joined, acc = [], ""
        for l in block:
            if l.rstrip().endswith("\\"):
                acc += l.rstrip()[:-1] + " "
                continue
            joined.append(acc + l)
            acc = ""
        for l in joined:
            w = l.strip()
            if not re.match(r"^(build/app/)?linerate ", w):
                continue
            if "[" in w or "..." in w or "--help |" in w:
                continue	# a synopsis, not a command
            out.append(w)
    return out


def trace_pcap(d):
    """trace.pcap in d: UDP and TCP flows, as the examples read, 20 us
    apart (scapy's own times are when it built each frame: a replay that
    keeps them took as long as scapy did)."""
    script = ("from scapy.all import *\n"
              "p=[Ether()/IP(src='10.0.0.%%d'%%(i%%50+1),dst='10.1.0.1')/"
              "UDP(sport=1000+i%%7,dport=53)/Raw(b'x'*40) for i in range(600)]\n"
              "p+=[Ether()/IP(src='10.2.0.1',dst='10.3.0.1')/TCP(sport=5000,dport=80,flags=f)"
              " for f in ('S','A','FA')]\n"
              "for i, x in enumerate(p): x.time = 1700000000 + i * 20e-6\n"
              "wrpcap(%r, p)\n" % os.path.join(d, "trace.pcap"))
    subprocess.run(["/usr/bin/python3", "-c", script], check=True)


def adapt_doctor(argv, name):
    """linerate doctor's EAL options for a NIC, here: this machine's EAL
    set-up and net_null in place of the NIC (-a PCI), so that its port
    lines run too; its own options as written."""
    k = argv.index("--") if "--" in argv else len(argv)
    e, opts = argv[1:k], argv[k:]
    ne, pci, i = [], False, 0
    while i < len(e):
        if e[i] in ("-a", "-l", "-m", "--file-prefix"):
            pci |= e[i] == "-a"
            i += 2
            continue
        if e[i] not in ("--no-huge", "--no-pci"):
            ne.append(e[i])
        i += 1
    return ["doctor"] + eal(name) + ne + (["--vdev", "net_null0"] if pci else []) + opts


def adapt(cmd, name):
    """The argv to run @p cmd here, or None with why it cannot run."""
    argv = shlex.split(cmd)[1:]
    if argv[:1] == ["doctor"]:
        return adapt_doctor(argv, name), None
    if "--" not in argv:
        return argv, None
    k = argv.index("--")
    e, opts = argv[:k], argv[k + 1:]
    pci = any(re.match(r"^[0-9a-f]{4}:", a) for a in e)
    ne = []
    mem = int(e[e.index("-m") + 1]) if "-m" in e else 512
    i = 0
    while i < len(e):
        a = e[i]
        if a in ("-a", "--file-prefix", "-m", "-l"):
            i += 2
            continue
        if a in ("--no-huge", "--no-pci"):
            i += 1
            continue
        ne.append(a)
        i += 1
    base = eal(name, mem=mem)
    if "--lcores" in ne:
        j = ne.index("--lcores")
        lc = ne[j + 1]
        del ne[j:j + 2]
        base = eal(name, lcores=lc, mem=mem)
    elif pci and "--queues" in opts:
        q = int(opts[opts.index("--queues") + 1])
        base = eal(name, lcores="0@0,(1-%d)@1" % q, mem=mem)
    # A scenario: a script, or one of lua/ by its name (linerate -- rfc2544)
    # where no --role is given.
    script = any(o.endswith(".lua") for o in opts) or "--role" not in opts and \
        any(os.path.exists(os.path.join(SRC, "lua", o + ".lua")) for o in opts)
    if pci and "mode=ports" in opts:
        return None, "two cabled NIC ports"
    if pci:
        opts = ["net_null0" if (o == "0" and opts[j - 1] == "--port") else
                "net_null1" if (o == "1" and opts[j - 1] == "--peer") else o
                for j, o in enumerate(opts)]
        if not script and "--count" not in opts and "--duration" not in opts:
            opts += ["--duration", "0.5"]
        if "delay" in opts and "--late-share" not in opts:
            # net_null floods the box faster than this machine's lcore
            # sends: late (exit 3) is the right verdict, not the example's.
            opts += ["--late-share", "100"]
    for j, o in enumerate(opts):
        if o == "--duration" and float(opts[j + 1]) > 1:
            opts[j + 1] = "0.5"
    if pci and "--role" in opts and opts[opts.index("--role") + 1] == "delay" and \
            "--late-share" not in opts:
        # A NIC's example on net_null: the null port floods the box faster
        # than this machine's lcore sends, so its verdict is late (exit 3),
        # rightly, and not the example's subject.
        opts += ["--late-share", "100"]
    if ("--rate" in opts or "--pcap" in opts) and not script:
        # A rate (or a capture's timing) this shared machine cannot keep
        # is flagged (exit 3), not an example that does not run.
        opts.append("--allow-short")
    if script:
        # A scenario: its steps cut short (seconds= is every sweep's).
        rfc = any(o.endswith("rfc2544.lua") or o == "rfc2544" for o in opts)
        if not rfc and not any(o.startswith("seconds=") for o in opts) and \
                takes(opts, "seconds"):
            opts.append("seconds=0.2")
        if not rfc and takes(opts, "sizes"):
            # A sweep (per-sweep's 17 sizes took 10 s): two sizes run
            # each step of it; the sizes themselves are test_rx_accounting's
            # and test_plot's.
            opts.append("sizes=64,1472")
        if rfc:
            # RFC 2544 over every size and test takes minutes: the
            # example's DUT and options, one size, a few short trials
            # (the last key=value wins).
            opts += ["sizes=%d" % (84 if "ipv6=1" in opts else 64),
                     "tests=throughput", "trial=0.1", "warmup=0.01", "steps=4"]
    return base + ne + ["--", "--no-live"] + opts, None


def takes(opts, key):
    """Whether the scenario in @p opts describes a @p key= argument
    (testbed.params refuses a key it does not describe)."""
    for o in opts:
        for path in (os.path.join(SRC, o), os.path.join(SRC, "lua", o + ".lua")):
            if os.path.isfile(path) and path.endswith(".lua"):
                return '{ "%s",' % key in open(path).read()
    return False


def memif_server(argv):
    """(devargs, socket path) of a memif server port in argv, or None."""
    for a in argv:
        m = re.search(r"net_memif\d*,role=server,socket=([^,]+)", a)
        if m:
            return a, m.group(1)
    return None, None


def kernel_port(argv):
    """The devargs of a port on a kernel interface or vhost-user socket
    in argv (doc/usage.md's Ports on kernel interfaces and VMs), or None."""
    for a in argv:
        if re.match(r"net_(af_packet|af_xdp|tap|vhost|virtio_user)\d*,", a):
            return a
    return None


def run_kernel_example(argv, d, n):
    """Runs an example of a port on a kernel interface or a vhost-user
    socket as root, with what it needs made here: af_packet, af_xdp and
    tap examples in a network namespace of their own with the veth pair
    veth0 <-> veth1 (up) that the section has; an rx on veth1 with a gen
    sending into veth0; a vhost-user server (net_vhost) with a
    virtio_user gen as its client, and a virtio_user port with a vhost
    rx as its server, on a socket in @p d. Returns (rc, stderr)."""
    if os.geteuid() != 0:
        print("skip %s: needs root" % " ".join(argv))
        return 0, ""
    port = kernel_port(argv)
    ns = "lr_st_doc%d_%d" % (n, os.getpid())
    eal_peer = eal("docpeer%d" % n)
    pre, peer_args, serve_first = [], None, False
    sock = os.path.join(d, "lr-vhost.sock")
    if port.startswith(("net_af_packet", "net_af_xdp", "net_tap")):
        pre = ["ip", "netns", "exec", ns]
        if "iface=veth1" in port:
            # Sending before the example's rx starts: its --duration is
            # cut to 0.5 s and its port is up at once.
            peer_args = ["--role", "gen", "--port", "net_af_packet0,iface=veth0",
                         "--rate", "10kpps", "--duration", "8"]
            serve_first = True
    else:
        argv = [re.sub(r"(iface|path)=[^,]+", r"\1=" + sock, a) if a == port else a
                for a in argv]
        if port.startswith("net_vhost"):
            peer_args = ["--role", "gen", "--port", "net_virtio_user0,path=" + sock,
                         "--rate", "10kpps", "--duration", "8"]
        else:
            peer_args = ["--role", "rx", "--port", "net_vhost0,iface=" + sock,
                         "--duration", "8"]
            serve_first = True
    p = peer = None
    try:
        if pre:
            subprocess.run(["ip", "netns", "add", ns], check=True)
            subprocess.run(["ip", "-n", ns, "link", "add", "veth0", "type", "veth",
                            "peer", "name", "veth1"], check=True)
            for i in ("veth0", "veth1"):
                subprocess.run(["ip", "-n", ns, "link", "set", i, "up"], check=True)
        peer_cmd = pre + [LINERATE] + eal_peer + ["--"] + (peer_args or []) + ["--no-live"]
        if serve_first:
            peer = subprocess.Popen(peer_cmd, cwd=d, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            if pre:
                time.sleep(1)	# the peer's port is up and sending
            else:
                wait_for(sock)
        env = None
        if port.startswith("net_af_xdp"):
            # The sanitizer build: DPDK 22.11's af_xdp PMD leaves libxdp's
            # umem (xsk_umem__create) at close, not linerate's.
            supp = os.path.join(d, "lsan.supp")
            open(supp, "w").write("leak:xsk_umem__create\n")
            env = dict(os.environ, LSAN_OPTIONS="suppressions=" + supp)
        p = subprocess.Popen(pre + [LINERATE] + argv, cwd=d, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
        if peer_args and not serve_first:
            time.sleep(1)	# the example's port is up and polling
            peer = subprocess.Popen(peer_cmd, cwd=d, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        out, err = p.communicate(timeout=60)
        return p.returncode, err
    finally:
        for q in (p, peer):
            if q is not None and q.poll() is None:
                q.kill()
                q.communicate()
        if pre:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        if os.path.exists(sock):
            os.unlink(sock)


def test_command_examples():
    d = tmpdir()
    trace_pcap(d)
    # Commands name build/app/linerate, lua/ and doc/examples/ from the
    # top of the tree.
    os.symlink(os.path.join(SRC, "lua"), os.path.join(d, "lua"))
    os.symlink(os.path.join(SRC, "doc"), os.path.join(d, "doc"))
    ran = 0
    for doc in DOCS:
        for n, cmd in enumerate(commands(doc)):
            argv, why = adapt(cmd, "doc%d" % n)
            if why is not None:
                print("skip %s: needs %s" % (cmd, why))
                continue
            server, sock = memif_server(argv)
            if sock:
                if os.path.exists(sock):
                    os.unlink(sock)
                p = subprocess.Popen([LINERATE] + argv, cwd=d, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
                time.sleep(1)	# an abstract socket leaves no file to wait for
                peer = start(eal("docpeer%d" % n) + [
                    "--", "--role", "gen", "--port",
                    re.sub("role=server", "role=client", server),
                    "--rate", "1Mpps", "--duration", "8", "--no-live"], cwd=d)
                try:
                    out, err = p.communicate(timeout=60)
                finally:
                    p.kill()
                    peer.kill()
                    peer.communicate()
                rc = p.returncode
            elif kernel_port(argv):
                rc, err = run_kernel_example(argv, d, n)
            else:
                r = run(argv, timeout=120, cwd=d)
                rc, err = r.returncode, r.stderr
                if rc != 0 and "rate short" in r.stdout and \
                        "sizes INVALID" in err:
                    # A sweep on a machine too busy to keep its rate says
                    # so and fails; the example itself ran.
                    print("note: %s: rates short on this machine" % cmd)
                    rc = 0
                if rc == 3 and argv[:1] == ["solve"] and \
                        "implausible:" in err:
                    # A solve example whose estimates cannot be true is
                    # documented as such (exit 3): it ran.
                    rc = 0
                if rc == 3 and "device-latency: INVALID: the m" in err:
                    # device-latency.lua on a machine whose stalls held
                    # every frame of a pair (a minimum below 0), or moved
                    # a pair's mean (a mean below 0), says so (exit 3): it
                    # ran.
                    print("note: %s: implausible on this machine" % cmd)
                    rc = 0
                if rc in (3, 4, 5) and ": INVALID: task " in err:
                    # A scenario that says which of its tasks this busy
                    # host spoiled (a rate short, a late box) ran.
                    print("note: %s: tasks spoiled by the host, said" % cmd)
                    rc = 0
                if rc == 5 and "net_null0" in argv and \
                        "no linerate frame of a tracked flow arrived" in err:
                    # A NIC's rx example on net_null, whose frames are not
                    # linerate's: no loss to give, said (exit 5); it ran.
                    print("note: %s: no linerate frames on net_null" % cmd)
                    rc = 0
                if rc == 3 and "incomplete (exit 3)" in err:
                    # RFC 2544 cut short (4 steps): its answers are bounds,
                    # said so with exit 3; the example itself ran.
                    print("note: %s: bounds, not the DUT's limits" % cmd)
                    rc = 0
            expect(rc == 0, "%s: %s\n  ran: %s\n%s" % (os.path.basename(doc), cmd,
                                                      " ".join(argv), err[-600:]))
            ran += 1
    expect(ran >= 8, "only %d commands found" % ran)


# Which role and port run the examples of each option table.
TABLES = {
    "### Port options": ["--role", "gen", "--port", "net_null0", "--count", "1000",
                         "--flows", "64"],
    "### gen options": ["--role", "gen", "--port", "net_null0", "--count", "1000"],
    # gen's frames (flows 1000..1003), so that rx has loss to count: on
    # net_null's frames alone its verdict is invalid (exit 5).
    "### rx options": ["--role", "rx", "--port", "LRPCAP", "--count", "1000"],
    "### probe options": ["--role", "probe", "--port", "PCAP", "--export", "none"],
    # net_null floods the box faster than this machine's lcore sends: its
    # verdict late is right, and not the example's subject.
    "### delay options": ["--role", "delay", "--port", "net_null0", "--peer",
                          "net_null1", "--duration", "0.3", "--late-share",
                          "100"],
    "### reflect options": ["--role", "reflect", "--port", "net_null0",
                            "--duration", "0.3"],
    # Nothing comes back on net_null: --drain 0.2, not the default 1 s
    # (40 examples), ends each run once its frames are out.
    "### rtt options": ["--role", "rtt", "--port", "net_null0", "--count",
                        "1000", "--duration", "1", "--drain", "0.2"],
}


def table_examples(path):
    """(section, example) for every `--option` example of the option tables."""
    out, section = [], None
    for line in open(path):
        if line.startswith("#"):
            section = line.strip() if line.strip() in TABLES else None
            continue
        if section is None or not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for ex in re.findall(r"`([^`]+)`", cells[-1]):
            if ex.startswith("--"):
                out.append((section, ex))
    return out


def test_option_table_examples():
    d = tmpdir()
    trace_pcap(d)
    pcap = "net_pcap0,rx_pcap=%s" % os.path.join(d, "trace.pcap")
    lrpcap = os.path.join(d, "gen.pcap")
    r = run(eal("optgen") + ["--", "--role", "gen", "--port", "net_pcap0,tx_pcap=" + lrpcap,
                             "--count", "1000", "--flows", "4", "--flow-base", "1000",
                             "--no-live"], timeout=120)
    expect(r.returncode == 0, r.stderr[-500:])
    found = table_examples(os.path.join(SRC, "doc", "usage.md"))
    expect(len(found) >= 40, "only %d table examples found" % len(found))
    bad = []
    for n, (section, ex) in enumerate(found):
        base = [pcap if a == "PCAP" else "net_pcap0,rx_pcap=" + lrpcap
                if a == "LRPCAP" else a for a in TABLES[section]]
        opts = shlex.split(ex)
        # An option given by the example replaces the base's.
        for o in opts:
            if o.startswith("--") and o in base:
                j = base.index(o)
                del base[j:j + 2]
        lc = "0-1"
        if "--channels" in opts:
            lc = "0@0,(1-%s)@1" % opts[opts.index("--channels") + 1]
        elif section == "### probe options" and "--ingress" in opts:
            opts += ["--channels", "2"]
            lc = "0@0,(1-2)@1"
        if section == "### probe options" and "--count" not in opts:
            opts += ["--duration", "0.5"]
        if "--queues" in opts and section != "### probe options":
            lc = "0@0,(1-%s)@1" % opts[opts.index("--queues") + 1]
        absent = False
        if "--export" in opts and opts[opts.index("--export") + 1].startswith("tcp:"):
            # A collector that is not there: the run ends (at once with
            # --export-wait 0), its records counted lost, and exits 1 saying so.
            opts[opts.index("--export") + 1] = "tcp:127.0.0.1:9"
            opts += ["--export-wait", "0"]
            absent = True
        if "--rate" in opts or "--queues" in opts or "--pcap" in opts:
            opts.append("--allow-short")	# load is not the example's fault
        r = run(eal("opt%d" % n, lcores=lc) + ["--"] + base + opts + ["--no-live"],
                timeout=120, cwd=d)
        if absent and r.returncode == 1 and "IPFIX records not delivered" in r.stderr:
            continue
        # A capture without linerate's stamps has no latency: no table,
        # and the run says so and fails.
        if "--dist-out" in opts and r.returncode == 1 and \
                "fewer than 2 latency samples: no table written" in r.stderr:
            continue
        if section == "### rtt options" and r.returncode == 5 and \
                "frames came back" in r.stderr:
            # Nothing reflects on net_null: no RTT, said (exit 5).
            continue
        if r.returncode != 0:
            bad.append("%s `%s`: rc %d %s" % (section, ex, r.returncode,
                                              r.stderr.strip().splitlines()[-1:]))
    expect(not bad, "\n".join(bad))


def test_option_tables_are_the_codes():
    """The option tables of doc/usage.md that the code has as tables are
    exactly what `linerate --options-md NAME` prints from them."""
    text = open(os.path.join(SRC, "doc", "usage.md")).read().split("\n")
    for section, name in (("## Options", "linerate"), ("## linerate solve", "solve"),
                          ("## linerate doctor", "doctor"),
                          ("### Port options", "port"), ("### gen options", "gen"),
                          ("### rx options", "rx"), ("### probe options", "probe"),
                          ("### delay options", "delay"),
                          ("### reflect options", "reflect"),
                          ("### rtt options", "rtt")):
        i = text.index(section) + 1
        while not text[i].startswith("|"):
            i += 1
        j = i
        while j < len(text) and text[j].startswith("|"):
            j += 1
        want = subprocess.run([LINERATE, "--options-md", name], capture_output=True,
                              text=True, check=True).stdout.rstrip("\n").split("\n")
        expect(text[i:j] == want, "%s: doc/usage.md differs from --options-md "
               "%s:\n%s" % (section, name, "\n".join(
                   l for l in want if l not in text[i:j])))


def test_metrics_table_is_the_code():
    """doc/usage.md's table of metrics is exactly what `linerate
    --metrics-md` prints from the roles' counter tables: a metric added,
    renamed or retyped in a table without the doc fails here."""
    text = open(os.path.join(SRC, "doc", "usage.md")).read().split("\n")
    i = text.index("| metric | type | what |")
    j = i
    while j < len(text) and text[j].startswith("|"):
        j += 1
    want = subprocess.run([LINERATE, "--metrics-md"], capture_output=True,
                          text=True, check=True).stdout.rstrip("\n").split("\n")
    expect(text[i:j] == want, "doc/usage.md's metrics differ from --metrics-md:\n%s" %
           "\n".join(sorted(set(want) ^ set(text[i:j]))))


def test_lua_reference_values():
    text = open(os.path.join(SRC, "doc", "usage.md")).read()
    checks = re.findall(r"`(linerate\.[a-z_]+\([^`]*\)) --> ([0-9.]+)`", text)
    expect(len(checks) >= 4, checks)
    d = tmpdir()
    script = os.path.join(d, "ref.lua")
    with open(script, "w") as f:
        for call, want in checks:
            # As many digits as the doc gives.
            digits = len(want.split(".")[1]) if "." in want else 0
            f.write("do local v = %s; local s = ('%%.%df'):format(v)\n"
                    "  assert(s == '%s', '%s gives ' .. s .. ', doc says %s') end\n"
                    % (call, digits, want, call, want))
    r = run(eal("luaref") + ["--", script], timeout=60)
    expect(r.returncode == 0, r.stderr[-800:])


def test_readme_lua_snippet():
    blocks = [b for b in code_blocks(os.path.join(SRC, "README.md"))
              if any("linerate.task" in l for l in b)]
    expect(len(blocks) == 1, blocks)
    d = tmpdir()
    script = os.path.join(d, "readme.lua")
    open(script, "w").write("\n".join(blocks[0]) + "\n")
    r = run(eal("readme") + ["--", "--no-live", script], timeout=120)
    expect(r.returncode == 0, r.stderr[-800:])
    nums = r.stdout.split()
    expect(len(nums) == 5 and nums[1] == "1000000" and nums[2] == "0", r.stdout)


def test_user_script_dir():
    """A user's own script, in a directory of its own, finds the scenarios'
    modules; a memif peer that cannot start is reported at once."""
    d = tmpdir()
    script = os.path.join(d, "mine.lua")
    open(script, "w").write(
        'local testbed = require("testbed")\n'
        'local tb <close> = testbed.open(testbed.args(arg, { mode = "memif" }))\n')
    t0 = time.time()
    r = run(eal("userdir") + ["--", script, "peer_eal=--no-such-eal-option"],
            timeout=60, cwd=d)
    expect(r.returncode == 1 and "peer exited with" in r.stderr, r.stderr[-600:])
    expect(time.time() - t0 < 20, "waited %.1f s for a peer that had exited" %
           (time.time() - t0))


def slug(heading):
    """GitHub's anchor of a markdown heading: lower case, punctuation but
    - and _ dropped, spaces as -."""
    h = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", h).replace(" ", "-")


def test_every_role_and_scenario_has_a_section():
    """Every role of the role table (--help's 'roles:', and linerate
    solve) and every scenario of lua/*.lua has a section of doc/usage.md
    that names it, linked by its name from doc/usage.md's opening (before
    its first ## section) and from README.md: a new role or scenario
    without one fails here."""
    helptext = run(["--help"]).stdout
    # "roles: gen, rx, probe, delay, reflect, rtt; dist with probe"
    line = re.search(r"(?m)^roles: (.*)$", helptext).group(1)
    roles = [w for w in re.findall(r"[a-z0-9_-]+", line) if w != "with"]
    roles = sorted(set(roles), key=roles.index)
    expect(len(roles) >= 7 and "dist" in roles, roles)
    # linerate solve is a command of its own (no EAL) beside the roles.
    roles.append("solve")
    scenarios = sorted(f[:-4] for f in os.listdir(os.path.join(SRC, "lua"))
                       if f.endswith(".lua"))
    expect(len(scenarios) >= 10, scenarios)
    usage = open(os.path.join(SRC, "doc", "usage.md")).read()
    readme = open(os.path.join(SRC, "README.md")).read()
    headings = {}
    for h in re.findall(r"(?m)^#+ .*$", usage):
        headings.setdefault(slug(h), h)
    opening = usage[:usage.index("\n## ")]

    def links(text, prefix):
        out = {}
        for t, a in re.findall(r"\[([^\]]+)\]\(%s#([^)]+)\)" % re.escape(prefix),
                              text):
            out.setdefault(t.replace("`", ""), set()).add(a)
        return out

    where = (("doc/usage.md's opening", links(opening, "")),
             ("README.md", links(readme, "doc/usage.md")))
    bad = []
    for kind, names in (("role", roles), ("scenario", scenarios)):
        for name in names:
            texts = [name] if kind == "role" else [name, "lua/%s.lua" % name]
            for doc, found in where:
                anchors = set().union(*[found.get(t, set()) for t in texts])
                if not anchors:
                    bad.append("%s %s: no link [%s](...#section) in %s" %
                               (kind, name, name, doc))
                    continue
                for a in anchors:
                    h = headings.get(a)
                    if h is None:
                        bad.append("%s %s: %s links #%s, no such section" %
                                   (kind, name, doc, a))
                    elif not re.search(r"(^|[^\w-])%s([^\w-]|$)" % re.escape(
                            name if kind == "role" else "lua/%s.lua" % name), h):
                        bad.append("%s %s: %s links section %r, which does "
                                   "not name it" % (kind, name, doc, h))
    expect(not bad, "\n".join(bad))


def test_role_contract_listed():
    """doc/architecture.md names every member of the role's structs in
    lr_engine.h (struct lr_role, lr_task_kind, lr_plan, lr_report,
    lr_lifecycle): a member added without a line there fails."""
    hdr = open(os.path.join(SRC, "lib", "engine", "lr_engine.h")).read()
    doc = open(os.path.join(SRC, "doc", "architecture.md")).read()
    missing = []
    for name in ("lr_role", "lr_task_kind", "lr_plan", "lr_report", "lr_lifecycle"):
        m = re.search(r"^struct %s \{\n(.*?)^\};" % name, hdr, re.S | re.M)
        expect(m is not None, "struct %s not in lr_engine.h" % name)
        body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
        members = re.findall(r"(?:\(\*\s*(\w+)\)\s*\(|(\w+)\s*(?:\[[^\]]*\])?\s*;)",
                             body)
        names = [a or b for a, b in members]
        expect(len(names) >= 2, (name, names))
        for n in names:
            if "`%s`" % n not in doc:
                missing.append("%s.%s" % (name, n))
    expect(not missing, "doc/architecture.md does not list: %s" % ", ".join(missing))


if __name__ == "__main__":
    main([test_command_examples, test_option_table_examples,
          test_option_tables_are_the_codes, test_metrics_table_is_the_code,
          test_lua_reference_values, test_readme_lua_snippet,
          test_user_script_dir, test_every_role_and_scenario_has_a_section,
          test_role_contract_listed])
