#!/usr/bin/env python3
"""The golden oracle checked on its own (no pytest: plain asserts; exit 1 on
a failure; "N passed, N failed" last):
  - the PRNG against lib/random32.c's self-test vectors (test1, test2) and
    prandom_seed_state worked by hand;
  - tc's conversions and defaults (percent, time, rate, size, loss models,
    reorder's implied gap, what tc refuses);
  - a few frames per feature worked through by reading netem_enqueue()
    and netem_dequeue(), from the raw PRNG sequence;
  - statistics: loss and duplicate rates within binomial bounds, the
    4-state and Gilbert-Elliott loss rates against their chains' stationary
    laws, tabledist() against the .dist tables' quantiles, netem's
    correlation shrinking the spread as (1 - rho) / (1 + rho);
  - invariants of the simulation: every queued copy leaves once, at its
    time; no-reorder keeps the order; limit holds.
"""
import io
import math
import os
import random
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netem_ref as N  # noqa: E402

U32 = N.U32
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def run(spec, trace):
    """simulate() on [(t, len)] -> the output lines."""
    out = []
    N.simulate(N.parse(spec), trace, out.append)
    return out


def draws(seed, k):
    p = N.prandom_seed_state(seed)
    return [p.u32() for _ in range(k)]


# ---------------------------------------------------------------- the PRNG

# lib/random32.c (now lib/tests/random32_kunit.c): the seeds go through an
# LCG and prandom_warmup() (ten draws) before the compared draw.
TEST1 = [(1, 3484351685), (2, 2623130059), (3, 3125133893), (4, 984847254)]
TEST2 = [
    (931557656, 959, 2975593782), (1339693295, 876, 3887776532),
    (1545556285, 961, 1615538833), (601730776, 723, 1776162651),
    (1027516047, 687, 511983079), (416526298, 700, 916156552),
    (1395522032, 652, 2222063676), (366221443, 617, 2992857763),
    (1539836965, 714, 3783265725), (556206671, 994, 799626459),
    (684907218, 799, 367789491), (2121230701, 931, 2115467001),
    (1668516451, 644, 3620590685), (768046066, 883, 2034077390),
    (1989159136, 833, 1195767305), (536585145, 996, 3577259204),
    (1008129373, 642, 1478080776), (1740775604, 939, 1264980372),
    (1967883163, 508, 10734624), (1923019697, 730, 3821419629),
    (442079932, 560, 3440032343), (1961302714, 845, 841962572),
    (2030205964, 962, 1325144227), (1160407529, 507, 240940858),
    (635482502, 779, 4200489746), (1252788931, 699, 867195434),
    (1961817131, 719, 668237657), (1071468216, 983, 917876630),
    (1281848367, 932, 1003100039), (582537119, 780, 1127273778),
    (1973672777, 853, 1071368872), (1896756996, 762, 1127851055),
    (847917054, 500, 1717499075), (1240520510, 951, 2849576657),
    (1685071682, 567, 1961810396), (1516232129, 557, 3173877),
    (1208118903, 612, 1613145022), (1817269927, 693, 4279122573),
    (1510091701, 717, 638191229), (365916850, 807, 600424314),
    (399324359, 702, 1803598116), (1318480274, 779, 2074237022),
    (697758115, 840, 1483639402), (1696507773, 840, 577415447),
    (2081979121, 981, 3041486449), (955646687, 742, 3846494357),
    (1250683506, 749, 836419859), (595003102, 534, 366794109),
    (47485338, 558, 3521120834), (619433479, 610, 3991783875),
    (704096520, 518, 4139493852), (1712224984, 606, 2393312003),
    (1318233152, 922, 3880361134), (855572992, 761, 1472974787),
    (64721421, 703, 683860550), (678931758, 840, 380616043),
    (692711973, 778, 1382361947), (677703619, 530, 2826914161),
    (92393223, 586, 1522128471), (1222592920, 743, 3466726667),
    (358288986, 695, 1091956998), (1935056945, 958, 514864477),
    (735675993, 990, 1294239989), (1560089402, 897, 2238551287),
    (70616361, 829, 22483098), (368234700, 731, 2913875084),
    (20221190, 879, 1564152970), (539444654, 682, 1835141259),
    (1314987297, 840, 1801114136), (2019295544, 645, 3286438930),
    (469023838, 716, 1637918202), (1843754496, 653, 2562092152),
    (400672036, 809, 4264212785), (404722249, 965, 2704116999),
    (600702209, 758, 584979986), (519953954, 667, 2574436237),
    (1658071126, 694, 2214569490), (420480037, 749, 3430010866),
    (690103647, 969, 3700758083), (1029424799, 937, 3787746841),
    (2012608669, 506, 3362628973), (1535432887, 998, 42610943),
    (1330635533, 857, 3040806504), (1223800550, 539, 3954229517),
    (1322411537, 680, 3223250324), (1877847898, 945, 2915147143),
    (1646356099, 874, 965988280), (805687536, 744, 4032277920),
    (1948093210, 633, 1346597684), (392609744, 783, 1636083295),
    (690241304, 770, 1201031298), (1360302965, 696, 1665394461),
    (1220090946, 780, 1316922812), (447092251, 500, 3438743375),
    (1613868791, 592, 828546883), (523430951, 548, 2552392304),
    (726692899, 810, 1656872867), (1364340021, 836, 3710513486),
    (1986257729, 931, 935013962), (407983964, 921, 728767059),
]


def selftest_state(seed):
    """random32.c's prandom_state_selftest_seed() and prandom_warmup()."""
    def lcg(x):
        return (x * 69069) & U32

    def smin(x, m):
        return x + m if x < m else x
    p = N.Prng()
    p.s1 = smin(lcg(seed), 2)
    p.s2 = smin(lcg(p.s1), 8)
    p.s3 = smin(lcg(p.s2), 16)
    p.s4 = smin(lcg(p.s3), 128)
    for _ in range(10):
        p.u32()
    return p


@test
def prng_selftest_vectors():
    for seed, want in TEST1:
        assert selftest_state(seed).u32() == want, seed
    for seed, it, want in TEST2:
        p = selftest_state(seed)
        for _ in range(it - 1):
            p.u32()
        assert p.u32() == want, seed


@test
def prng_seed_state_by_hand():
    # i = ((seed >> 32) ^ (seed << 10) ^ seed) & 0xffffffff; s_k = i, or
    # i + m_k when i < m_k (m = 2, 8, 16, 128); no warm-up
    for seed, words in [(0, (2, 8, 16, 128)), (1, (1025,) * 4),
                        (1 << 32, (3, 9, 17, 129)),
                        (5, (5 ^ 5120 ^ 0,) * 4),
                        ((1 << 64) - 1, None)]:
        p = N.prandom_seed_state(seed)
        if words is None:
            # (2^32-1) ^ ((2^64-1) << 10 truncated: low 32 bits
            # 0xfffffc00) ^ (2^32-1) = 0xfffffc00
            words = (0xFFFFFC00,) * 4
        assert (p.s1, p.s2, p.s3, p.s4) == words, (seed, p.s1)
    # the first draw from s = 1025 in all four words, step by step
    s = 1025
    s1 = ((s & 0xFFFFFFFE) << 18 & U32) ^ ((((s << 6) & U32) ^ s) >> 13)
    s2 = ((s & 0xFFFFFFF8) << 2 & U32) ^ ((((s << 2) & U32) ^ s) >> 27)
    s3 = ((s & 0xFFFFFFF0) << 7 & U32) ^ ((((s << 13) & U32) ^ s) >> 21)
    s4 = ((s & 0xFFFFFF80) << 13 & U32) ^ ((((s << 3) & U32) ^ s) >> 12)
    # 1025 = 0x401: s1 = 1024 << 18 ^ (0x10441 >> 13), s2 = 1024 << 2 ^
    # (0x1405 >> 27), s3 = 1024 << 7 ^ (0x802401 >> 21), s4 = 1024 << 13 ^
    # (0x2409 >> 12)
    assert (s1, s2, s3, s4) == ((1 << 28) ^ 8, 4096, (1 << 17) ^ 4,
                                (1 << 23) ^ 2), (s1, s2, s3, s4)
    assert N.prandom_seed_state(1).u32() == s1 ^ s2 ^ s3 ^ s4
    assert draws(7, 1) == [1939238955]


@test
def crandom_by_hand():
    p = N.prandom_seed_state(3)
    v = draws(3, 3)
    st = N.Crnd(0)
    assert N.get_crandom(st, p) == v[0]     # rho 0: the raw draw
    st = N.Crnd(U32 // 2)           # rho = 2^31 - 1, so rho + 1 = 2^31
    a = N.get_crandom(st, p)
    assert a == (v[1] * (1 << 31) + 0 * (1 << 31)) >> 32 == v[1] >> 1
    b = N.get_crandom(st, p)
    assert b == (v[2] + a) >> 1 and st.last == b


@test
def crandom_initial_last():
    # the kernel's init_crandom() takes "last" from get_random_u32(); here
    # from prng2 = prandom_seed_state(seed ^ PRNG2_XOR), five draws in the
    # order delay, loss, duplicate, reorder, corrupt, whatever is given
    c = N.parse("delay 1ms 1ms 10% loss 1% 20% duplicate 1% 30% "
                "reorder 1% 40% corrupt 1% 50% seed 77")
    q = N.Netem(c)
    lasts = draws(77 ^ N.PRNG2_XOR, 5)
    assert [q.delay_cor.last, q.loss_cor.last, q.dup_cor.last,
            q.reorder_cor.last, q.corrupt_cor.last] == lasts
    assert q.dup_cor.rho == N.set_percent(.3)
    # the first correlated delay starts from it
    v = draws(77, 1)[0]
    c = N.parse("delay 1ms 1ms 10% seed 77")
    rho = c.delay_corr + 1
    crnd = (v * ((1 << 32) - rho) + lasts[0] * rho) >> 32
    out = run("delay 1ms 1ms 10% seed 77", [(T0, 60)])
    assert out[0] == "E 0 o queued %d 0" % (T0 + crnd % 2000000), out


@test
def tabledist_by_hand():
    r = draws(11, 4)
    p = N.prandom_seed_state(11)
    # uniform: (rnd % (2 sigma)) + mu - sigma
    assert N.tabledist(1000, 0, None, p, None) == 1000  # no draw
    assert N.tabledist(5000000, 1000000, None, p, None) == \
            r[0] % 2000000 + 4000000
    # a table: t = table[rnd % size]; sigma = 3 * 8192 + 100
    tbl = [-8192, 0, 8191, -1]
    t = tbl[r[1] % 4]
    x = 100 * t
    x = x + 4096 if x >= 0 else x - 4096
    want = int(x / 8192) + 3 * t + 7
    assert N.tabledist(7, 3 * 8192 + 100, None, p, tbl) == want
    # C's truncating division of a negative x
    assert N.cdiv(-4196, 8192) == 0 and N.cdiv(-12288, 8192) == -1
    # sigma * t / 8192 with the kernel's rounding, all four entries
    for t, want in [(-8192, -24676 + 7), (0, 7), (8191, 24673 + 7),
                    (-1, -3 + 7)]:
        x = 100 * t
        x = x + 4096 if x >= 0 else x - 4096
        assert N.cdiv(x, 8192) + 3 * t + 7 == want, t


@test
def packet_time_by_hand():
    c = N.parse("delay 1ms rate 100mbit 4 48 5 seed 2")
    assert (c.rate, c.packet_overhead, c.cell_size, c.cell_overhead) == \
            (12500000, 4, 48, 5)
    q = N.Netem(c)
    # 100 + 4 = 104 bytes: 3 cells of 48 (2 and a remainder), 53 each
    assert q.packet_time_ns(100) == 3 * 53 * 10 ** 9 // 12500000 == 12720
    assert q.packet_time_ns(92) == 2 * 53 * 80
    for d in (1, 3, 48, 53, 1000, 65535, 0x7FFFFFFF):
        r = N.reciprocal_value(d)
        for a in (0, 1, d - 1, d, d + 1, 1514, 123456789, U32):
            assert N.reciprocal_divide(a, r) == a // d, (a, d)
    c = N.parse("rate 1gbit 20 seed 1")
    q = N.Netem(c)
    assert q.packet_time_ns(60) == 80 * 8 and q.packet_time_ns(1514) == 12272


# ---------------------------------------------------------------- tc

def fails(spec):
    try:
        N.parse(spec)
    except N.SpecError as e:
        return str(e)
    raise AssertionError("accepted: " + spec)


@test
def tc_conversions():
    pc = N.set_percent
    assert pc(0.01) == 42949673 and pc(1.0) == U32 and pc(0) == 0
    assert N.get_percent("1%") == N.get_percent("1") == 42949673
    assert N.get_percent("0.1%") == 4294967 # rint(4294967.295)
    assert N.get_time64("184ms") == 184000000
    assert N.get_time64("8us") == 8000 and N.get_time64("1s") == 10 ** 9
    assert N.get_time64("100") == 100       # bare: ns (get_time64)
    assert N.get_time64("1.005ms") == 1004999   # double, truncated
    assert N.get_time64("10MSEC") == 10000000
    assert N.get_rate64("1gbit") == 125000000
    assert N.get_rate64("100mbit") == 12500000
    assert N.get_rate64("8000") == 1000     # bare: bit/s
    assert N.get_rate64("1mbps") == 1000000 # = MBps: bytes, as tc
    assert N.get_rate64("1Mibit") == 131072
    assert N.get_size("50") == 50 and N.get_size("2k") == 2048
    assert N.get_u32("0x10") == 16 and N.get_u32("010") == 8
    c = N.parse("delay 10ms seed 1")
    assert (c.latency, c.jitter, c.limit, c.seed) == (10 ** 7, 0, 1000, 1)
    c = N.parse("limit 50 delay 1ms seed 1")
    assert c.limit == 50 and c.latency == 10 ** 6
    c = N.parse("delay 184ms 8us distribution normal seed 3")
    assert c.jitter == 8000 and len(c.delay_dist) == 4096
    assert c.delay_dist[0] == -32768
    # abbreviations, in tc's order of tests
    c = N.parse("del 1ms 1ms du 5% dis pareto se 2")
    assert c.duplicate == pc(0.05) and c.delay_dist_name == "pareto"
    assert N.parse("d 3ms").latency == 3 * 10 ** 6  # d: delay, not dup
    assert N.parse("l 7").limit == 7 and N.parse("ra 1gbit").rate
    assert "reorder" in fails("r 1gbit")        # r: reorder


@test
def tc_loss_models():
    c = N.parse("loss 1% seed 5")
    assert c.loss_model == "random" and c.loss == 42949673
    c = N.parse("loss random 30% 50% seed 6")
    assert c.loss == N.set_percent(0.3) and c.loss_corr == N.set_percent(.5)
    c = N.parse("loss state 1% 30% 1% 5% 0.1% seed 8")
    # kernel: a1 p13, a2 p31, a3 p32, a4 p14, a5 p23
    assert (c.a1, c.a2, c.a3, c.a4, c.a5) == tuple(N.get_percent(x) for x in (
        "1", "30", "1", "0.1", "5")), c.show()
    c = N.parse("loss state 5% seed 8")
    # defaults: p31 = 1 - p13, p32 = 0, p23 = 1, p14 = 0
    assert (c.a1, c.a2, c.a3, c.a4, c.a5) == (
        N.set_percent(.05), N.set_percent(1 - .05), 0, 0, U32)
    c = N.parse("loss gemodel 2% 20% 70% 0.1% seed 4")
    assert (c.a1, c.a2, c.a3, c.a4) == (
        N.set_percent(.02), N.set_percent(.2), U32 - N.set_percent(.7),
        N.set_percent(.001))
    c = N.parse("loss gemodel 2% seed 4")
    # defaults: r = 1 - p, 1-h = 1 (h = 0), 1-k = 0
    assert (c.a1, c.a2, c.a3, c.a4) == (
        N.set_percent(.02), N.set_percent(.98), 0, 0)
    assert "duplicate loss" in fails("loss 1% loss 2% seed 1")
    assert "(word 2)" in fails("loss foo seed 1")


@test
def tc_implied_and_refused():
    c = N.parse("delay 10ms reorder 25% 50% seed 12")
    assert c.gap == 1 and c.reorder == N.set_percent(.25)
    assert c.reorder_corr == N.set_percent(.5)
    c = N.parse("delay 10ms reorder 10% gap 5 seed 13")
    assert c.gap == 5 and c.reorder == N.set_percent(.1)
    assert "without specifying some delay" in fails("reorder 5% seed 1")
    assert "gap specified without" in fails("delay 1ms gap 5 seed 1")
    assert "no latency and jitter" in fails(
        "delay 1ms distribution normal seed 1")
    assert "(word 2)" in fails("delay 10xs seed 1")
    assert "(word 3)" in fails("delay 1ms bogus seed 1")
    assert "at the end" in fails("delay")
    assert "seed" in fails("loss 1%")
    assert "No such" in fails("delay 1ms 1ms distribution nosuchdist seed 1") \
            or "no distribution" in fails(
            "delay 1ms 1ms distribution nosuchdist seed 1")
    assert "negative latency" in fails("delay -1ms seed 1")
    assert "slot max" in fails("slot 2ms 1ms seed 1")
    assert fails("loss 101% seed 1") and fails("loss -1% seed 1")
    # a duplicate correlation alone never reaches the kernel (tc does not
    # send TCA_NETEM_CORR for it); with another correlation it does
    c = N.parse("duplicate 10% 40% corrupt 3% seed 11")
    assert c.dup_corr == 0 and c.corrupt == N.set_percent(.03)
    c = N.parse("duplicate 10% 40% corrupt 3% 1% seed 11")
    assert c.dup_corr == N.set_percent(.4)
    assert c.corrupt_corr == N.set_percent(.01)
    # jitter is capped to INT_MAX ns; slots
    assert N.parse("delay 10s 5s seed 1").jitter == 0x7FFFFFFF
    c = N.parse("delay 2ms slot distribution normal 1ms 100us packets 8 seed 3")
    assert (c.slot_dist_delay, c.slot_dist_jitter, c.slot_max_packets,
            c.slot_max_bytes) == (10 ** 6, 10 ** 5, 8, 0x7FFFFFFF)
    c = N.parse("slot 1ms seed 1")
    assert c.slot_min == c.slot_max == 10 ** 6 and c.replayable()
    assert not N.parse("slot 1ms 2ms bytes 3000 seed 1").replayable()
    assert N.parse("slot 1ms 2ms bytes 3000 seed 1").slot_max_bytes == 3000
    assert N.parse("none").limit == 1000
    assert N.parse("delay 10ms 5ms no-reorder seed 4").no_reorder


@test
def cli_bad_spec_exit_2():
    r = subprocess.run([sys.executable, os.path.join(HERE, "netem_ref.py"),
                        "delay 10xs seed 1"], input="", capture_output=True,
                       text=True)
    assert r.returncode == 2 and "10xs" in r.stderr and not r.stdout
    r = subprocess.run([sys.executable, os.path.join(HERE, "netem_ref.py"),
                        "delay 1ms seed 1"], input="5 60\n7 100\n",
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:4] == [
        "E 0 o queued 1000005 0", "E 1 o queued 1000007 0",
        "D 0 o 1000005", "D 1 o 1000007"], r.stdout


# ---------------------------------------------------------------- by hand

T0 = 10 ** 9


@test
def hand_delay_jitter_uniform():
    # one draw per frame: tts = T + (rnd % 2 sigma) + mu - sigma
    r = draws(7, 3)
    trace = [(T0, 100), (T0 + 10, 200), (T0 + 20, 300)]
    tts = [t + r[k] % 20000000 + 90000000 for k, (t, _) in enumerate(trace)]
    out = run("delay 100ms 10ms seed 7", trace)
    e = [l for l in out if l[0] == "E"]
    assert e == ["E %d o queued %d 0" % (k, tts[k]) for k in range(3)], out
    d = sorted(range(3), key=lambda k: (tts[k], k))
    assert [l for l in out if l[0] == "D"] == \
            ["D %d o %d" % (k, tts[k]) for k in d]
    assert tts[0] == T0 + 19238955 + 90000000


@test
def hand_loss_random():
    # loss iff loss >= rnd (loss 30%: 1288490189)
    r = draws(6, 20)
    out = run("loss 30% seed 6", [(T0 + k, 60) for k in range(20)])
    lim = N.set_percent(.3)
    for k in range(20):
        want = ("E %d o lost 0 0" % k) if lim >= r[k] else \
                ("E %d o queued %d 0" % (k, T0 + k))
        assert want in out, (k, want)
    assert sum(lim >= x for x in r) == sum("lost" in l for l in out)


@test
def hand_duplicate_corrupt():
    # the original draws duplicate, then corrupt; the clone (enqueued
    # first, through the root) draws only corrupt: duplicate, loss (none
    # here) and reorder (none) are not drawn for it
    c = N.parse("duplicate 10% corrupt 3% seed 11")
    r = iter(draws(11, 200))
    want = []
    for k in range(40):
        dup = c.duplicate >= next(r)
        cor = int(c.corrupt >= next(r))
        if dup:
            dcor = int(c.corrupt >= next(r))
            want.append("E %d d queued %d %d" % (k, T0 + 1000 * k, dcor))
        want.append("E %d o queued %d %d" % (k, T0 + 1000 * k, cor))
    out = run("duplicate 10% corrupt 3% seed 11",
              [(T0 + 1000 * k, 60) for k in range(40)])
    assert [l for l in out if l[0] == "E"] == want, out
    assert any(" d " in l for l in want)
    # the clone leaves first (delay 0: both due now; the clone is first in
    # the tfifo)
    for k in range(40):
        ds = [l for l in out if l.startswith("D %d " % k)]
        es = [l.split()[2] for l in want if l.startswith("E %d " % k)]
        assert [l.split()[2] for l in ds] == es


@test
def hand_duplicate_loss():
    # duplicated and lost: count 2 - 1 = 1, the original goes, no clone
    spec = "duplicate 50% loss 50% seed 21"
    c = N.parse(spec)
    r = iter(draws(21, 400))
    want = []
    for k in range(30):
        cnt = 1 + (c.duplicate >= next(r))
        cnt -= c.loss >= next(r)
        if cnt == 0:
            want.append("E %d o lost 0 0" % k)
            continue
        if cnt == 2:
            lost = c.loss >= next(r)    # the clone's own loss draw
            want.append(("E %d d lost 0 0" % k) if lost else
                        ("E %d d queued %d 0" % (k, T0 + k)))
        want.append("E %d o queued %d 0" % (k, T0 + k))
    out = run(spec, [(T0 + k, 60) for k in range(30)])
    assert [l for l in out if l[0] == "E"] == want


@test
def hand_4state():
    # one draw a frame; the sums a1 + a4 and a2 + a3 are u32 and wrap
    # (p13 100% and p14 2%: a1 + a4 = a4 - 1, so never to the burst)
    for spec in ("loss state 10% 40% 20% 30% 5% seed 8",
                 "loss state 100% 0% 0% 100% 2% seed 9"):
        c = N.parse(spec)
        r = iter(draws(c.seed, 300))
        st, want = 1, []
        for k in range(150):
            x = next(r)
            lost = False
            if st == 1:
                if x < c.a4:
                    st, lost = 3, True
                elif x < (c.a1 + c.a4) % (1 << 32):
                    st, lost = 4, True
            elif st == 2:
                if x < c.a5:
                    st, lost = 4, True
            elif st == 4:
                if x < c.a3:
                    st = 2
                elif x < (c.a2 + c.a3) % (1 << 32):
                    st = 1
                else:
                    lost = True
            else:
                st = 1
            want.append(("E %d o lost 0 0" % k) if lost else
                        ("E %d o queued %d 0" % (k, T0 + k)))
        out = run(spec, [(T0 + k, 60) for k in range(150)])
        assert [l for l in out if l[0] == "E"] == want, spec
        assert any("lost" in l for l in want)


@test
def hand_reorder_gap():
    # gap 5: frames while counter < 4 are delayed without a draw; then
    # one draw: reorder >= rnd sends it to the head (now), counter = 0
    spec = "delay 10ms reorder 10% gap 5 seed 13"
    c = N.parse(spec)
    r = iter(draws(13, 100))
    want, counter = [], 0
    for k in range(60):
        t = T0 + 1000 * k
        if counter < 4 or c.reorder < next(r):
            counter += 1
            want.append("E %d o queued %d 0" % (k, t + 10 ** 7))
        else:
            counter = 0
            want.append("E %d o head %d 0" % (k, t))
    out = run(spec, [(T0 + 1000 * k, 60) for k in range(60)])
    assert [l for l in out if l[0] == "E"] == want
    assert any("head" in l for l in want)
    for l in want:
        if "head" in l:     # leaves at once
            i, t = l.split()[1], l.split()[4]
            assert "D %s o %s" % (i, t) in out


@test
def hand_reorder_correlated():
    # gap 1 (implied): one correlated draw a frame, starting from the
    # "last" init_crandom() gave: prng2's 4th draw (delay, loss, dup,
    # reorder, corrupt)
    spec = "delay 10ms reorder 25% 50% seed 12"
    c = N.parse(spec)
    r = iter(draws(12, 100))
    last = draws(12 ^ N.PRNG2_XOR, 4)[3]
    assert N.Netem(c).reorder_cor.last == last
    want = []
    rho = c.reorder_corr + 1
    for k in range(50):
        v = next(r)
        last = (v * ((1 << 32) - rho) + last * rho) >> 32
        t = T0 + 1000 * k
        want.append(("E %d o queued %d 0" % (k, t + 10 ** 7))
                    if c.reorder < last else ("E %d o head %d 0" % (k, t)))
    out = run(spec, [(T0 + 1000 * k, 60) for k in range(50)])
    assert [l for l in out if l[0] == "E"] == want


@test
def hand_gemodel():
    spec = "loss gemodel 20% 20% 70% 10% seed 4"
    c = N.parse(spec)
    r = iter(draws(4, 400))
    state, want = "G", []
    for k in range(100):
        if state == "G":
            if next(r) < c.a1:
                state = "B"
            lost = next(r) < c.a4
        else:
            if next(r) < c.a2:
                state = "G"
            lost = next(r) > c.a3
        want.append(("E %d o lost 0 0" % k) if lost else
                    ("E %d o queued %d 0" % (k, T0 + k)))
    out = run(spec, [(T0 + k, 60) for k in range(100)])
    assert [l for l in out if l[0] == "E"] == want


@test
def hand_rate_last_packet():
    # rate 1gbit 20: 60 + 20 bytes = 640 ns; a frame behind another
    # starts from the last one's time: delay - (last - now), floored at 0
    out = run("delay 1us rate 1gbit 20 seed 1",
              [(T0, 60), (T0, 60), (T0 + 100, 1514), (T0 + 10 ** 6, 60)])
    a = T0 + 1000 + 640
    b = a + 640         # 1000 - (a - T0) < 0 -> 0
    c = b + 12272           # 1514 + 20 bytes
    d = T0 + 10 ** 6 + 1000 + 640   # the queue emptied: from now
    assert [l for l in out if l[0] == "E"] == [
        "E 0 o queued %d 0" % a, "E 1 o queued %d 0" % b,
        "E 2 o queued %d 0" % c, "E 3 o queued %d 0" % d], out


@test
def hand_limit():
    # qlen counts the frames held; at qlen >= limit the frame is dropped
    out = run("limit 3 delay 1ms seed 1", [(T0 + k, 60) for k in range(5)] +
              [(T0 + 10 ** 6 + 2, 60)])
    e = [l for l in out if l[0] == "E"]
    assert [l.split()[3] for l in e] == ["queued"] * 3 + ["limit"] * 2 + \
            ["queued"]
    # the departures at T0 + 1ms + 0..2 come before the arrival at + 2
    assert out.index("D 2 o %d" % (T0 + 10 ** 6 + 2)) < \
            out.index("E 5 o queued %d 0" % (T0 + 2 * 10 ** 6 + 2))


@test
def hand_duplicate_over_limit():
    # the original over the limit: both copies dropped, the clone never
    # enqueued (no draws for it), said first
    spec = "limit 1 delay 1ms duplicate 100% seed 3"
    out = run(spec, [(T0, 60), (T0 + 1, 60)])
    assert [l for l in out if l[0] == "E"] == [
        "E 0 d queued %d 0" % (T0 + 10 ** 6),
        "E 0 o queued %d 0" % (T0 + 10 ** 6),   # not checked again
        "E 1 d limit 0 0", "E 1 o limit 0 0"], out


@test
def hand_slot_distribution():
    # the first dequeue (after the first enqueue at T0) finds slot_next
    # (configured earlier) before the head's time: get_slot_next(T0) draws
    # the slot from the table with q->prng
    spec = "delay 2ms slot distribution normal 1ms 100us packets 2 seed 3"
    c = N.parse(spec)
    p = N.prandom_seed_state(3)
    s1 = T0 + N.tabledist(10 ** 6, 10 ** 5, None, p, c.slot_dist)
    out = run(spec, [(T0, 60)])
    # at T0 + 2ms: slot_next (s1 < tts) is redrawn from T0 + 2ms
    s2 = T0 + 2 * 10 ** 6 + N.tabledist(10 ** 6, 10 ** 5, None, p, c.slot_dist)
    assert s1 < T0 + 2 * 10 ** 6
    assert out == ["E 0 o queued %d 0" % (T0 + 2 * 10 ** 6),
                   "D 0 o %d" % s2], (out, s1, s2)


@test
def hand_slot_fixed_packets():
    # slot 1ms packets 2: two frames a slot, the slot redrawn (1ms) after
    spec = "slot 1ms packets 2 seed 1"
    out = run(spec, [(T0, 60)] * 5)
    d = [l for l in out if l[0] == "D"]
    # the first arrival's dequeue: slot_next (config time) < tts = T0 ->
    # slot at T0 + 1ms; two leave there, the next slot at T0 + 2ms...
    assert d == ["D 0 o %d" % (T0 + 10 ** 6), "D 1 o %d" % (T0 + 10 ** 6),
                 "D 2 o %d" % (T0 + 2 * 10 ** 6),
                 "D 3 o %d" % (T0 + 2 * 10 ** 6),
                 "D 4 o %d" % (T0 + 3 * 10 ** 6)], out


@test
def hand_no_reorder():
    r = draws(4, 6)
    out = run("delay 10ms 5ms no-reorder seed 4",
              [(T0 + 1000 * k, 60) for k in range(6)])
    last, want = 0, []
    for k in range(6):
        t = T0 + 1000 * k + r[k] % 10 ** 7 + 5 * 10 ** 6
        last = max(last, t)
        want.append("E %d o queued %d 0" % (k, last))
    assert [l for l in out if l[0] == "E"] == want


# ---------------------------------------------------------------- statistics

def binom_ok(k, n, p, z=5.0):
    sd = math.sqrt(n * p * (1 - p))
    return abs(k - n * p) <= z * sd + 1


def stream(n, seed=1):
    rng = random.Random(seed)
    t, out = T0, []
    for _ in range(n):
        t += rng.randint(50, 20000)
        out.append((t, rng.randint(60, 1514)))
    return out


@test
def stat_loss_duplicate_rates():
    n = 100000
    tr = stream(n)
    out = run("loss 1% seed 5", tr)
    k = sum(" lost " in l for l in out)
    assert binom_ok(k, n, 0.01), k
    out = run("duplicate 5% seed 3", tr)
    k = sum(" d queued " in l for l in out)
    assert binom_ok(k, n, 0.05), k
    # correlation keeps the mean draw but narrows it: fewer values below
    # 30%, so fewer losses than 30% (netem's known shrink)
    out = run("loss 30% 50% seed 6", tr)
    k = sum(" lost " in l for l in out)
    assert 0.05 * n < k < 0.30 * n and not binom_ok(k, n, 0.3), k


def stationary(P):
    n = len(P)
    pi = [1.0 / n] * n
    for _ in range(20000):
        pi = [sum(pi[i] * P[i][j] for i in range(n)) for j in range(n)]
    return pi


@test
def stat_4state_ge():
    n = 200000
    tr = [(T0 + k, 60) for k in range(n)]
    p13, p31, p32, p23, p14 = .01, .30, .01, .05, .001
    # states 1 TX gap, 2 TX burst, 3 lost gap, 4 lost burst
    P = [[1 - p13 - p14, 0, p14, p13], [0, 1 - p23, 0, p23], [1, 0, 0, 0],
         [p31, p32, 0, 1 - p31 - p32]]
    pi = stationary(P)
    want = pi[2] + pi[3]
    out = run("loss state 1% 30% 1% 5% 0.1% seed 8", tr)
    k = sum(" lost " in l for l in out)
    assert abs(k / n - want) < 0.1 * want, (k / n, want)
    # GE: the loss depends on the state before the move
    p, r, h1, k1 = .02, .2, .7, .001
    pib = p / (p + r)
    want = (1 - pib) * k1 + pib * h1
    out = run("loss gemodel 2% 20% 70% 0.1% seed 4", tr)
    k = sum(" lost " in l for l in out)
    assert abs(k / n - want) < 0.1 * want, (k / n, want)
    # burst lengths in GE: a bad spell lasts 1/r frames on average
    runs, cur = [], 0
    for l in out:
        if l[0] != "E":
            continue
        if " lost " in l:
            cur += 1
        elif cur:
            runs.append(cur)
            cur = 0
    assert 1.5 < sum(runs) / len(runs) < 5, sum(runs) / len(runs)


@test
def stat_tabledist_quantiles():
    # sigma = 1000 * 8192: tabledist gives 1000 * table[rnd % size] exactly,
    # so its law is the table's: compare the CDFs (Kolmogorov distance)
    for name in ("normal", "pareto", "paretonormal", "experimental"):
        tbl = N.load_dist(name)
        p = N.prandom_seed_state(99)
        n = 100000
        xs = sorted(N.tabledist(0, 1000 * 8192, None, p, tbl) // 1000
                    for _ in range(n))
        ts = sorted(tbl)
        # the empirical CDF at each table quantile
        worst, j = 0.0, 0
        for q in range(0, len(ts), 16):
            v = ts[q]
            while j < n and xs[j] <= v:
                j += 1
            ft = sum(1 for x in ts if x <= v) / len(ts)
            worst = max(worst, abs(j / n - ft))
        assert worst < 0.01, (name, worst)
    # the normal table is N(0, 8192) (4 sigma clipped)
    tbl = N.load_dist("normal")
    m = sum(tbl) / len(tbl)
    sd = math.sqrt(sum((x - m) ** 2 for x in tbl) / len(tbl))
    assert abs(m) < 100 and abs(sd - 8192) < 0.03 * 8192, (m, sd)
    # a delay through the whole path: 184ms 8us normal, the sample's sd
    c = N.parse("delay 184ms 8us distribution normal seed 3")
    q = N.Netem(c)
    ds = [N.tabledist(c.latency, c.jitter, q.delay_cor, q.prng, c.delay_dist)
          for _ in range(50000)]
    m = sum(ds) / len(ds)
    sd = math.sqrt(sum((x - m) ** 2 for x in ds) / len(ds))
    assert abs(m - 184e6) < 200 and abs(sd - 8000) < 400, (m, sd)


@test
def stat_correlation_shrinks():
    # get_crandom with rho: an exponential smoothing of uniforms; its
    # variance is (1 - rho) / (1 + rho) of the uniform's
    for rho in (0.25, 0.5, 0.9):
        st = N.Crnd(N.set_percent(rho))
        p = N.prandom_seed_state(5)
        xs = [N.get_crandom(st, p) / 2 ** 32 for _ in range(100000)]
        m = sum(xs) / len(xs)
        v = sum((x - m) ** 2 for x in xs) / len(xs)
        want = (1 - rho) / (1 + rho) / 12
        assert abs(m - 0.5) < 0.01 and abs(v / want - 1) < 0.05, (rho, v)


# ---------------------------------------------------------------- maketable

@test
def maketable_by_hand():
    # samples 0 and 1: mu 0.5, sigma sqrt(0.5); normalised -+0.7071 land in
    # bins 164645 and 235355 of 400000; the cumulative inverted: entry 0 gets
    # the last bin below the first sample, rint((164644 / 50000 - 4) * 8192)
    # = -5793; 2048 (half) gets rint(0.70708 * 8192) = 5792; 4095 (clamped
    # from 4096) gets 32768, clamped 32767; the rest interpolated in ints
    tb, mu, sigma, rho = N.maketable([0.0, 1.0])
    assert mu == 0.5 and abs(sigma - math.sqrt(0.5)) < 1e-15
    assert (tb[0], tb[2048], tb[4095]) == (-5793, 5792, 32767), tb[:4]
    assert tb[1] == -5793 + 1 * 11585 // 2048 == -5788
    assert tb[1024] == -5793 + (1024 * 11585) // 2048 == -1
    assert tb[3000] == 5792 + (952 * (32767 - 5792)) // 2047
    txt = N.format_table(tb)
    lines = txt.split("\n")
    assert lines[0].startswith("# This is the distribution table")
    assert len(lines) == 1 + 512 + 1 and lines[-1] == ""
    assert lines[1] == " ".join(str(v) for v in tb[:8])
    # what maketable writes, tc reads back unchanged
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                        "netem_ref_%d.dist" % os.getpid())
    with open(path, "w") as f:
        f.write(txt)
    try:
        assert N.load_dist(path) == tb
    finally:
        os.unlink(path)
    # fscanf's end: a last number without a newline after it is lost
    assert N.read_doubles("1 2 3\n") == [1.0, 2.0, 3.0]
    assert N.read_doubles("1 2 3") == [1.0, 2.0]
    r = subprocess.run([sys.executable, os.path.join(HERE, "netem_ref.py"),
                        "--maketable"], input="0\n1\n", capture_output=True,
                       text=True)
    assert r.returncode == 0 and r.stdout == txt, r.stderr
    assert "mu     0.5000" in r.stderr


@test
def maketable_of_normal_samples():
    # samples of N(100, 10): the table is close to iproute2's normal.dist
    rng = random.Random(1)
    xs = [rng.gauss(100, 10) for _ in range(50000)]
    tb, mu, sigma, rho = N.maketable(xs)
    assert abs(mu - 100) < 0.2 and abs(sigma - 10) < 0.2 and abs(rho) < 0.02
    assert all(tb[i] <= tb[i + 1] for i in range(len(tb) - 1))
    nd = N.load_dist("normal")
    worst = max(abs(a - b) for a, b in zip(tb[100:-100], nd[100:-100]))
    assert worst < 0.03 * 8192, worst


# ---------------------------------------------------------------- invariants

def check_invariants(spec, trace):
    out = run(spec, trace)
    c = N.parse(spec)
    queued, left, last_t = {}, set(), -1
    order = []
    for l in out:
        f = l.split()
        if f[0] == "E":
            key = (int(f[1]), f[2])
            if f[3] in ("queued", "head"):
                assert key not in queued
                queued[key] = (f[3], int(f[4]))
                order.append(key)
        else:
            key, t = (int(f[1]), f[2]), int(f[3])
            assert key in queued and key not in left, l
            left.add(key)
            assert t >= last_t, l
            last_t = t
            kind, tts = queued[key]
            if kind == "head":
                assert t == trace[key[0]][0], l
            elif not c.slot_active():
                assert t == tts, l
            else:
                assert t >= tts, l
    assert left == set(queued), spec
    return out, order


@test
def invariants():
    tr = stream(5000, seed=3)
    for spec in ("delay 100ms 10ms seed 7", "limit 50 delay 1ms seed 1",
                 "delay 10ms reorder 25% 50% seed 12",
                 "duplicate 10% 40% corrupt 3% seed 11",
                 "delay 1ms rate 100mbit 4 48 5 seed 2",
                 "delay 2ms slot distribution normal 1ms 100us packets 8 seed 3",
                 "delay 1ms 500us 25% distribution pareto seed 9"):
        check_invariants(spec, tr)
    out, order = check_invariants("delay 10ms 5ms no-reorder seed 4", tr)
    dep = [(int(l.split()[1]), l.split()[2]) for l in out if l[0] == "D"]
    assert dep == order
    out = run("limit 50 delay 1ms seed 1", tr)
    # qlen never above the limit: count held frames along the output
    held = 0
    for l in out:
        f = l.split()
        if f[0] == "E" and f[3] == "queued":
            held += 1
            assert held <= 50
        elif f[0] == "D":
            held -= 1
    assert any(" limit " in l for l in out)


def main():
    passed = failed = 0
    for fn in TESTS:
        try:
            fn()
            passed += 1
            print("ok   %s" % fn.__name__)
        except Exception:
            failed += 1
            print("FAIL %s" % fn.__name__)
            traceback.print_exc(file=sys.stdout)
        sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
