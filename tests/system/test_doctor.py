#!/usr/bin/env python3
"""linerate doctor: the pre-flight check of a machine for real NICs.

Most tests run it on faked sysfs and procfs trees built in a temporary
directory (--sysfs-root): a two-node NUMA box with hugepages on node 0
only, an IOMMU and vfio-pci, a NIC bound to vfio-pci on node 1 while the
lcores are on node 0, isolated cores, the powersave governor, a NIC whose
link is down and a kernel NIC that is up and carries the host's routes;
then the same box with each of those changed, one at a time, and each
line and exit code checked. The rest run it on this machine (no IOMMU,
no NIC for DPDK: said, not a crash) and on virtual ports EAL opens (link
up, link down, an MTU refused). Nothing here waits on the host's speed
but the bounded link wait: it holds with both cores busy.
"""
import json
import os
import re
import subprocess

from lrtest import LINERATE, SRC, eal, expect, load_json, main, run, tmpdir

LINE = re.compile(r"^(ok|warn|FAIL)\s+(\S+)\s+(\S+): (.*)$")


class Box:
    """A faked /sys and /proc below @p root, written as the kernel lays
    them out (what lib/doctor reads of it, nothing more)."""

    def __init__(self, root):
        self.root = root

    def file(self, rel, text):
        path = os.path.join(self.root, rel.lstrip("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text + "\n")

    def dir(self, rel):
        os.makedirs(os.path.join(self.root, rel.lstrip("/")), exist_ok=True)

    def link(self, rel, target):
        path = os.path.join(self.root, rel.lstrip("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(target, path)

    def rm(self, rel):
        path = os.path.join(self.root, rel.lstrip("/"))
        if os.path.islink(path) or os.path.isfile(path):
            os.unlink(path)
        else:
            subprocess.run(["rm", "-rf", path], check=True)

    def node(self, n, cpus, pages_2m=0, free_2m=None):
        base = "/sys/devices/system/node/node%d" % n
        self.file(base + "/cpulist", cpus)
        for size, nr in (("2048kB", pages_2m), ("1048576kB", 0)):
            self.file("%s/hugepages/hugepages-%s/nr_hugepages" % (base, size), str(nr))
            self.file("%s/hugepages/hugepages-%s/free_hugepages" % (base, size),
                      str(nr if free_2m is None or size != "2048kB" else free_2m))

    def nic(self, bdf, driver, node, group, iface=None, oper="up", speed=10000, mtu=1500,
            cls="0x020000"):
        dev = "/sys/bus/pci/devices/" + bdf
        self.file(dev + "/class", cls)
        self.file(dev + "/numa_node", str(node))
        if driver:
            self.link(dev + "/driver", "../../../bus/pci/drivers/" + driver)
        if group is not None:
            self.link(dev + "/iommu_group", "../../../kernel/iommu_groups/%d" % group)
            self.link("/sys/kernel/iommu_groups/%d/devices/%s" % (group, bdf),
                      "../../../../devices/pci0000:00/" + bdf)
        if iface:
            net = "%s/net/%s" % (dev, iface)
            self.file(net + "/operstate", oper)
            # A link that is down has no speed: the kernel's read fails.
            self.file(net + "/speed", str(speed) if oper == "up" else "")
            self.file(net + "/mtu", str(mtu))

    def governor(self, cpus, gov):
        for c in cpus:
            self.file("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor" % c, gov)


def numa2_box():
    """The box of the module's docstring, each part as its test changes it."""
    b = Box(tmpdir())
    b.node(0, "0-7", pages_2m=1024)
    b.node(1, "8-15", pages_2m=0)
    b.file("/sys/devices/system/cpu/online", "0-15")
    b.file("/sys/devices/system/cpu/isolated", "2-7,10-15")
    b.file("/sys/devices/system/cpu/nohz_full", "2-7,10-15")
    b.governor(range(16), "powersave")
    b.file("/proc/mounts", "sysfs /sys sysfs rw 0 0\n"
           "nodev /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0")
    b.file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro intel_iommu=on iommu=pt "
           "isolcpus=2-7,10-15 nohz_full=2-7,10-15")
    b.dir("/sys/class/iommu/dmar0")
    b.dir("/sys/module/vfio_pci")
    b.file("/sys/module/vfio/parameters/enable_unsafe_noiommu_mode", "N")
    # The run's NIC, for DPDK, on node 1.
    b.nic("0000:81:00.0", "vfio-pci", 1, 40)
    # A spare NIC, kernel-bound, its link down.
    b.nic("0000:03:00.0", "ixgbe", 0, 12, iface="eth1", oper="down")
    # The host's own NIC: up, with the default route.
    b.nic("0000:00:03.0", "igb", 0, 3, iface="eth0", speed=1000)
    b.file("/proc/net/route",
           "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
           "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000")
    # Something that is not a NIC, on the same bus.
    b.file("/sys/bus/pci/devices/0000:00:00.0/class", "0x060000")
    return b


def doctor(box, eal_args=(), opts=(), timeout=60):
    """linerate doctor on @p box (None: this machine); the lines parsed."""
    args = ["doctor"] + list(eal_args) + ["--"] + list(opts)
    if box is not None:
        args += ["--sysfs-root", box.root]
    r = run(args, timeout=timeout)
    lines = [LINE.match(l) for l in r.stdout.splitlines()]
    expect(r.stdout and all(lines), "lines not as ok|warn|FAIL CHECK SUBJECT: "
           "WHAT:\n%s\n%s" % (r.stdout, r.stderr[-800:]))
    for m in lines:
        if m.group(1) != "ok":
            expect("; fix: " in m.group(4), "a %s without its fix: %s" %
                   (m.group(1), m.group(0)))
    r.lines = [m.groups() for m in lines]
    return r


def find(r, check, subject=None, level=None):
    got = [l for l in r.lines if l[1] == check and (subject is None or l[2] == subject)
           and (level is None or l[0] == level)]
    expect(got, "no %s %s line%s:\n%s" % (check, subject or "", " at " + level if level
                                          else "", r.stdout))
    return got[0]


def fails(r):
    return [l for l in r.lines if l[0] == "FAIL"]


def test_numa2_box():
    """Every line of the faked box, and exit 1: node 1 has the port and no
    hugepage; the lcores are all on node 0."""
    b = numa2_box()
    out = os.path.join(b.root, "doctor.json")
    r = doctor(b, ["-l", "1-3", "-a", "81:00.0"], ["--json", out])
    expect(r.returncode == 1, (r.returncode, r.stdout, r.stderr[-500:]))
    expect(find(r, "hugepages", "node0")[0] == "ok", r.stdout)
    l = find(r, "hugepages", "node1")
    expect(l[0] == "FAIL" and "0000:81:00.0" in l[3] and
           "node1/hugepages/hugepages-2048kB/nr_hugepages" in l[3], l)
    expect(find(r, "iommu")[0] == "ok" and "dmar0" in find(r, "iommu")[3], r.stdout)
    expect(find(r, "vfio")[0] == "ok", r.stdout)
    l = find(r, "nic", "0000:81:00.0")
    expect(l[0] == "ok" and "vfio-pci" in l[3] and "node 1" in l[3] and "group 40" in l[3], l)
    l = find(r, "nic", "0000:00:03.0")
    expect(l[0] == "ok" and "cut the host off" in l[3], l)
    expect(find(r, "nic", "0000:03:00.0")[0] == "ok", r.stdout)
    expect(not [x for x in r.lines if x[2] == "0000:00:00.0"], "a bridge as a NIC")
    l = find(r, "lcores")
    expect(l[0] == "ok" and "main on CPU 1" in l[3] and "CPUs 2-3" in l[3], l)
    l = find(r, "numa", "0000:81:00.0")
    expect(l[0] == "FAIL" and "node 1" in l[3] and "-l with CPUs of node 1 (8-15)" in l[3], l)
    expect(find(r, "isolation")[0] == "ok", r.stdout)
    l = find(r, "governor", "2-3")
    expect(l[0] == "warn" and "powersave" in l[3] and "performance" in l[3], l)
    l = find(r, "link", "eth1")
    expect(l[0] == "warn" and "down" in l[3], l)
    l = find(r, "link", "eth0")
    expect(l[0] == "ok" and "1000 Mb/s" in l[3], l)
    expect("not opened" in find(r, "port")[3], r.stdout)
    expect(sorted(x[1] for x in fails(r)) == ["hugepages", "numa"], fails(r))
    # The document holds the same findings, and its schema takes it.
    doc = load_json(out)
    expect(doc["exit"] == 1 and doc["blocked"] and doc["fail"] == 2 and
           len(doc["checks"]) == len(r.lines), doc)
    expect([(c["level"], c["check"], c["subject"]) for c in doc["checks"]] ==
           [(lv.lower(), c, s) for lv, c, s, _ in r.lines], doc["checks"])
    check = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tools", "schema-check.py"),
                            os.path.join(SRC, "doc", "schema", "doctor.json"), out],
                           capture_output=True, text=True, timeout=60)
    expect(check.returncode == 0, check.stdout + check.stderr)
    doc["checks"][0]["level"] = "bad"
    with open(out, "w") as f:
        json.dump(doc, f)
    check = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tools", "schema-check.py"),
                            os.path.join(SRC, "doc", "schema", "doctor.json"), out],
                           capture_output=True, text=True, timeout=60)
    expect(check.returncode == 1 and "level" in check.stdout, check.stdout)


def test_fixed_box():
    """The same box set right (hugepages on node 1, lcores there, the
    performance governor): nothing blocks, exit 0; --lcores maps too."""
    b = numa2_box()
    b.node(1, "8-15", pages_2m=512)
    b.governor(range(16), "performance")
    for lc in (["-l", "9-11"], ["--lcores", "0@9,(1-2)@(10-11)"]):
        r = doctor(b, lc + ["-a", "0000:81:00.0"])
        expect(r.returncode == 0 and not fails(r), (lc, r.stdout))
        expect(find(r, "hugepages", "node1")[0] == "ok", r.stdout)
        l = find(r, "numa", "0000:81:00.0")
        expect(l[0] == "ok" and "10-11" in l[3], l)
        expect(find(r, "governor", "10-11")[0] == "ok", r.stdout)
        expect(find(r, "isolation", "10-11")[0] == "ok", r.stdout)
    # A worker on the other node: advice, not a block (EAL's main lcore
    # is the lowest but for --main-lcore).
    r = doctor(b, ["-l", "3,8-10", "--main-lcore", "8", "-a", "0000:81:00.0"])
    l = find(r, "numa", "0000:81:00.0")
    expect(r.returncode == 0 and l[0] == "warn" and "1 of the workers (CPUs 3,9-10)" in l[3],
           r.stdout)


def test_cores_not_isolated():
    b = numa2_box()
    b.node(1, "8-15", pages_2m=512)
    b.file("/sys/devices/system/cpu/isolated", "")
    b.file("/sys/devices/system/cpu/nohz_full", "(null)")
    r = doctor(b, ["-l", "8-11", "-a", "0000:81:00.0"])
    l = find(r, "isolation", "9-11")
    expect(l[0] == "warn" and "isolcpus=9-11 nohz_full=9-11" in l[3], l)
    expect(r.returncode == 0, "advice, not a block: %d" % r.returncode)
    b.file("/sys/devices/system/cpu/isolated", "8-15")
    r = doctor(b, ["-l", "8-11", "-a", "0000:81:00.0"])
    l = find(r, "isolation", "9-11")
    expect(l[0] == "warn" and "not nohz_full" in l[3], l)


def test_kernel_nics_asked():
    """A kernel NIC named by -a: the one with the host's routes would cut
    the host off; the one whose link is down says so too."""
    b = numa2_box()
    r = doctor(b, ["-l", "1-3", "-a", "0000:00:03.0"])
    l = find(r, "nic", "0000:00:03.0")
    expect(l[0] == "FAIL" and "cuts the host off" in l[3], l)
    expect(r.returncode == 1, r.stdout)
    r = doctor(b, ["-l", "1-3", "-a", "0000:03:00.0"], ["--jumbo"])
    l = find(r, "nic", "0000:03:00.0")
    expect(l[0] == "FAIL" and "ixgbe" in l[3] and
           "dpdk-devbind.py --bind=vfio-pci 0000:03:00.0" in l[3], l)
    expect(find(r, "link", "eth1")[0] == "FAIL", r.stdout)
    l = find(r, "mtu", "eth1")
    expect(l[0] == "FAIL" and "1500 < 9000" in l[3] and "mtu 9000" in l[3], l)


def test_iommu():
    """No IOMMU: vfio-pci cannot bind (a block, with the kernel's
    parameters); asked on the command line but absent: the firmware;
    vfio's no-IOMMU mode: advice. Without vfio_pci loaded: modprobe."""
    b = numa2_box()
    b.node(1, "8-15", pages_2m=512)
    b.rm("/sys/class/iommu/dmar0")
    b.file("/proc/cmdline", "ro quiet")
    r = doctor(b, ["-l", "9-11", "-a", "0000:81:00.0"])
    l = find(r, "iommu")
    expect(l[0] == "FAIL" and "intel_iommu=on iommu=pt" in l[3], l)
    expect(r.returncode == 1, r.stdout)
    b.file("/proc/cmdline", "ro intel_iommu=on")
    l = find(doctor(b, ["-l", "9-11", "-a", "0000:81:00.0"]), "iommu")
    expect(l[0] == "FAIL" and "firmware" in l[3], l)
    b.file("/sys/module/vfio/parameters/enable_unsafe_noiommu_mode", "Y")
    r = doctor(b, ["-l", "9-11", "-a", "0000:81:00.0"])
    expect(find(r, "iommu")[0] == "warn" and r.returncode == 0, r.stdout)
    b.rm("/sys/module/vfio_pci")
    r = doctor(b, ["-l", "9-11", "-a", "0000:81:00.0"])
    l = find(r, "vfio")
    expect(l[0] == "FAIL" and "modprobe vfio-pci" in l[3] and r.returncode == 1, l)


def test_iommu_group():
    """vfio opens an IOMMU group whole: a second function of the group
    left on its kernel driver blocks the first."""
    b = numa2_box()
    b.node(1, "8-15", pages_2m=512)
    b.nic("0000:81:00.1", "ixgbe", 1, 40, iface="eth2")
    r = doctor(b, ["-l", "9-11", "-a", "0000:81:00.0"])
    l = find(r, "nic", "0000:81:00.0", "FAIL")
    expect("group 40 also holds 0000:81:00.1" in l[3] and
           "--bind=vfio-pci 0000:81:00.1" in l[3], l)
    expect(r.returncode == 1, r.stdout)
    b.link("/sys/bus/pci/devices/0000:81:00.1/driver", "../../../bus/pci/drivers/vfio-pci")
    r = doctor(b, ["-l", "9-11", "-a", "0000:81:00.0"])
    expect(r.returncode == 0 and not fails(r), r.stdout)


def test_hugepages():
    b = numa2_box()
    b.node(1, "8-15", pages_2m=512)
    b.file("/proc/mounts", "sysfs /sys sysfs rw 0 0")
    r = doctor(b, ["-l", "9-11", "-a", "0000:81:00.0"])
    l = find(r, "hugepages", "hugetlbfs")
    expect(l[0] == "FAIL" and "mount -t hugetlbfs" in l[3] and r.returncode == 1, l)
    b.file("/proc/mounts", "nodev /mnt/huge hugetlbfs rw 0 0")
    # Reserved but all taken by another process.
    b.node(1, "8-15", pages_2m=512, free_2m=0)
    r = doctor(b, ["-l", "9-11", "-a", "0000:81:00.0"])
    expect(find(r, "hugepages", "node1")[0] == "FAIL", r.stdout)
    # A NIC's DMA does not go without hugepages.
    r = doctor(b, ["--no-huge", "-l", "9-11", "-a", "0000:81:00.0"])
    expect(find(r, "hugepages", "--no-huge")[0] == "FAIL", r.stdout)


def test_no_numa_no_nic():
    """A box without NUMA in sysfs, hugepages only in /sys/kernel/mm, and
    no NIC at all: said, exit 1; the same with --no-pci and a vdev: ok."""
    b = Box(tmpdir())
    b.file("/sys/devices/system/cpu/online", "0-1")
    b.file("/proc/mounts", "nodev /dev/hugepages hugetlbfs rw 0 0")
    b.file("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0")
    b.file("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "0")
    r = doctor(b, ["-l", "0-1"])
    expect(find(r, "hugepages", "memory")[0] == "FAIL", r.stdout)
    expect(find(r, "nic", "pci")[0] == "FAIL" and r.returncode == 1, r.stdout)
    expect(find(r, "governor")[0] == "ok" and "no cpufreq" in find(r, "governor")[3],
           r.stdout)
    r = doctor(b, ["-l", "0-1", "-a", "0000:99:00.0"])
    l = find(r, "nic", "0000:99:00.0")
    expect(l[0] == "FAIL" and "no such PCI device" in l[3], l)
    b.file("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "64")
    b.file("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "64")
    r = doctor(b, ["-l", "0-1", "--no-pci", "--vdev", "net_null0"])
    expect(r.returncode == 0 and find(r, "hugepages", "memory")[0] == "ok", r.stdout)
    # Without the sysfs directory, /proc/meminfo's count.
    b.rm("/sys/kernel/mm/hugepages")
    b.file("/proc/meminfo", "MemTotal:       24000000 kB\nHugePages_Total:     512\n"
           "HugePages_Free:      256\nHugepagesize:       2048 kB")
    l = find(doctor(b, ["-l", "0-1", "--no-pci", "--vdev", "net_null0"]), "hugepages",
             "memory")
    expect(l[0] == "ok" and "512 MiB free (256 of 512 2048kB)" in l[3], l)
    b.file("/proc/meminfo", "HugePages_Total:     512\nHugePages_Free:        0\n"
           "Hugepagesize:       2048 kB")
    r = doctor(b, ["-l", "0-1", "--no-pci", "--vdev", "net_null0"])
    expect(find(r, "hugepages", "memory")[0] == "FAIL" and r.returncode == 1, r.stdout)
    expect(find(r, "iommu")[0] == "ok" and find(r, "vfio")[0] == "ok", r.stdout)
    r = doctor(b, ["-l", "5-6", "--no-pci", "--vdev", "net_null0"])
    l = find(r, "lcores")
    expect(l[0] == "FAIL" and "not online" in l[3] and r.returncode == 1, l)


def test_environment_root():
    """LINERATE_SYSFS_ROOT is --sysfs-root's other spelling."""
    b = numa2_box()
    r = subprocess.run([LINERATE, "doctor", "-l", "1-3", "-a", "0000:81:00.0"],
                       env=dict(os.environ, LINERATE_SYSFS_ROOT=b.root),
                       capture_output=True, text=True, timeout=60)
    expect(r.returncode == 1 and "node1: no free hugepage" in r.stdout, r.stdout)


def test_this_machine():
    """This machine as it is (no IOMMU, no NIC for DPDK): each said in a
    line, no crash; with --no-pci its virtual port is opened and up."""
    r = doctor(None, [], ["--no-eal"])
    expect(r.returncode in (0, 1), (r.returncode, r.stderr[-500:]))
    if not os.path.isdir("/sys/class/iommu") or not os.listdir("/sys/class/iommu"):
        l = find(r, "iommu")
        expect(l[0] in ("FAIL", "warn") and "none" in l[3], r.stdout)
    expect(find(r, "port")[0] == "ok" and "--no-eal" in find(r, "port")[3], r.stdout)
    args = eal("doctor", mem=256) + ["--vdev", "net_null0"]
    r = doctor(None, args, ["--jumbo"])
    expect(r.returncode == 0, (r.stdout, r.stderr[-800:]))
    expect(find(r, "iommu")[0] == "ok" and find(r, "nic")[0] == "ok", r.stdout)
    l = find(r, "port", "net_null0")
    expect("max MTU 65535 >= 9000" in l[3], r.stdout)
    expect([x for x in r.lines if x[1] == "port" and "up, 10 Gbps" in x[3]], r.stdout)


def test_port_link_down_and_mtu():
    """A memif server without a peer: its link stays down, said after the
    bounded wait (exit 1); with --jumbo its 2048 B buffers refuse 9000."""
    d = tmpdir()
    sock = os.path.join(d, "m.sock")
    args = eal("doctorm", mem=256) + [
        "--vdev", "net_memif0,role=server,socket=%s,socket-abstract=no" % sock]
    r = doctor(None, args, ["--link-wait", "0.3", "--jumbo"])
    expect(r.returncode == 1, (r.stdout, r.stderr[-800:]))
    lines = [x for x in r.lines if x[1] == "port" and x[2] == "net_memif0"]
    expect(any(x[0] == "FAIL" and "MTU 9000 refused" in x[3] for x in lines), r.stdout)
    expect(any(x[0] == "FAIL" and "link down after 0.3 s" in x[3] for x in lines), r.stdout)
    expect(not os.path.exists(sock), "the memif socket left behind")


def test_bad_options():
    for opts, needle in ((["--bogus"], "unknown option '--bogus'"),
                         (["--mtu", "20"], "--mtu '20'"),
                         (["--jumbo", "--mtu", "1500"], "--jumbo is --mtu 9000"),
                         (["--link-wait", "x"], "--link-wait 'x'"),
                         (["--json", "/nonexistent/dir/x.json"], "cannot write")):
        r = run(["doctor", "--no-pci", "--"] + opts)
        expect(r.returncode == 2 and needle in r.stderr and not r.stdout,
               (opts, r.returncode, r.stderr))
    r = run(["doctor", "--help"])
    expect(r.returncode == 0 and "--sysfs-root DIR" in r.stdout, r.stdout)


def test_json_to_stdout():
    """--json -: stdout holds the document alone, the lines go to stderr."""
    b = numa2_box()
    r = run(["doctor", "-l", "1-3", "-a", "0000:81:00.0", "--", "--sysfs-root", b.root,
             "--json", "-"])
    doc = json.loads(r.stdout)
    expect(r.returncode == 1 and doc["exit"] == 1 and "FAIL  numa" in r.stderr,
           (r.returncode, r.stderr))


if __name__ == "__main__":
    main([test_numa2_box, test_fixed_box, test_cores_not_isolated, test_kernel_nics_asked,
          test_iommu, test_iommu_group, test_hugepages, test_no_numa_no_nic,
          test_environment_root, test_this_machine, test_port_link_down_and_mtu,
          test_bad_options, test_json_to_stdout])
