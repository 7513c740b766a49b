#!/usr/bin/env python3
"""netem_ref: an independent golden model of Linux's sch_netem (issue 14).

Written from reading the sources, not from linerate's C:
  - the kernel, v6.18: net/sched/sch_netem.c (netem_enqueue, netem_dequeue,
    get_crandom, tabledist, loss_4state, loss_gilb_ell, packet_time_ns,
    tfifo_enqueue, netem_peek, get_slot_next, get_slot, netem_change),
    include/linux/prandom.h (prandom_seed_state), lib/random32.c
    (prandom_u32_state), lib/reciprocal_div.c (reciprocal_value/divide);
  - iproute2's tc (q_netem.c netem_parse_opt and get_distribution, with the
    PRNG seed option (2023) and the 64-bit latency/jitter in ns (2024,
    iproute2 >= 6.9); tc_util.c get_rate64 and get_size; utils.c
    get_time64, parse_percent, get_u32/get_s32/get_u64).

As a module: parse(spec) -> Conf (what struct netem_sched_data holds after
netem_change), Netem(conf) (the qdisc's moving parts), simulate(conf,
arrivals) (an ideal device: the trace format below).

As a program:
    netem_ref.py 'SPEC' < trace        (stdin lines "T_NS LEN")
    netem_ref.py --show 'SPEC'         (the parsed kernel values)
    netem_ref.py --maketable < samples (iproute2's maketable)
prints one line per event:
    E <i> <o|d> <queued|head|lost|limit> <tts> <corrupt 0|1>
    D <i> <o|d> <t>
A bad SPEC: a message on stderr, exit 2.  NETEM_REF_DRAWS=1 in the
environment: every draw from the kernel's PRNG on stderr, with its caller.
See README.md for the model of time (when dequeue runs) and the conventions
where the kernel draws from an unseeded generator.
"""
import bisect
import collections
import math
import os
import re
import sys

U32 = 0xFFFFFFFF
U64 = 0xFFFFFFFFFFFFFFFF
INT_MAX = 0x7FFFFFFF
NSEC_PER_SEC = 1000000000
NETEM_DIST_SCALE = 8192
NETEM_DIST_MAX = 16384      # kernel's NETEM_DIST_MAX and tc's MAX_DIST

# the seed of the generator standing for the kernel's unseeded ones
# (lr_netem.h's LR_NETEM_PRNG2_XOR): seed ^ this
PRNG2_XOR = 0x9e3779b97f4a7c15

# the time the qdisc was configured, as ktime_get_ns() in get_slot(): any
# non-zero time before the first frame (see README: slots)
SLOT_CONFIG_TIME = 1


def s64(x):
    x &= U64
    return x - (1 << 64) if x >> 63 else x


def s32(x):
    x &= U32
    return x - (1 << 32) if x >> 31 else x


def s16(x):
    x &= 0xFFFF
    return x - 0x10000 if x >> 15 else x


def cdiv(a, b):
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# --------------------------------------------------------------------------
# the kernel's PRNG: prandom_seed_state() and prandom_u32_state()

class Prng:
    """struct rnd_state: L'Ecuyer's taus113 as lib/random32.c runs it."""
    __slots__ = ("s1", "s2", "s3", "s4")

    def __init__(self, s1=0, s2=0, s3=0, s4=0):
        self.s1, self.s2, self.s3, self.s4 = s1, s2, s3, s4

    @staticmethod
    def _seedmin(x, m):     # __seed()
        return (x + m) & U32 if x < m else x

    def seed_state(self, seed):
        """prandom_seed_state(): no warm-up, the four words from one."""
        seed &= U64
        i = ((seed >> 32) ^ ((seed << 10) & U64) ^ seed) & U32
        self.s1 = self._seedmin(i, 2)
        self.s2 = self._seedmin(i, 8)
        self.s3 = self._seedmin(i, 16)
        self.s4 = self._seedmin(i, 128)
        return self

    def u32(self):
        """prandom_u32_state()."""
        s1, s2, s3, s4 = self.s1, self.s2, self.s3, self.s4
        s1 = (((s1 & 4294967294) << 18) & U32) ^ ((((s1 << 6) & U32) ^ s1) >> 13)
        s2 = (((s2 & 4294967288) << 2) & U32) ^ ((((s2 << 2) & U32) ^ s2) >> 27)
        s3 = (((s3 & 4294967280) << 7) & U32) ^ ((((s3 << 13) & U32) ^ s3) >> 21)
        s4 = (((s4 & 4294967168) << 13) & U32) ^ ((((s4 << 3) & U32) ^ s4) >> 12)
        self.s1, self.s2, self.s3, self.s4 = s1, s2, s3, s4
        return s1 ^ s2 ^ s3 ^ s4


class TracingPrng(Prng):
    """A Prng that says every draw and who made it on stderr (debugging a
    difference with the C side: NETEM_REF_DRAWS=1)."""
    __slots__ = ("n",)

    def u32(self):
        v = Prng.u32(self)
        self.n = getattr(self, "n", 0) + 1
        f = sys._getframe(1)
        who = f.f_code.co_name
        if who == "get_crandom":
            who = "%s/%s" % (f.f_back.f_code.co_name, who)
        sys.stderr.write("draw %d %u %s\n" % (self.n, v, who))
        return v


def prandom_seed_state(seed, trace=False):
    return (TracingPrng() if trace else Prng()).seed_state(seed)


class Crnd:
    """struct crndstate.  The kernel's init_crandom() sets last from
    get_random_u32(), an unseeded generator: Netem() takes it from prng2
    (README: correlation)."""
    __slots__ = ("last", "rho")

    def __init__(self, rho=0, last=0):
        self.rho = rho & U32
        self.last = last & U32


def get_crandom(state, prng):
    """get_crandom(): the weighted mean of a new draw and the last value."""
    if state is None or state.rho == 0:
        return prng.u32()
    value = prng.u32()
    rho = state.rho + 1
    answer = (value * ((1 << 32) - rho) + state.last * rho) >> 32
    state.last = answer & U32
    return state.last


def tabledist(mu, sigma, state, prng, dist):
    """tabledist(): mu + sigma * table[rnd % size] / 8192, as the kernel
    rounds it; uniform in [mu - sigma, mu + sigma) without a table."""
    sigma = s32(sigma)
    if sigma == 0:
        return mu
    rnd = get_crandom(state, prng)
    if dist is None:
        return ((rnd % ((2 * sigma) & U32)) + mu) - sigma
    t = dist[rnd % len(dist)]
    x = (sigma % NETEM_DIST_SCALE) * t
    if x >= 0:
        x += NETEM_DIST_SCALE // 2
    else:
        x -= NETEM_DIST_SCALE // 2
    return cdiv(x, NETEM_DIST_SCALE) + (sigma // NETEM_DIST_SCALE) * t + mu


def fls(x):
    return x.bit_length()


def reciprocal_value(d):
    """lib/reciprocal_div.c: (m, sh1, sh2)."""
    l = fls((d - 1) & U32)
    m = ((1 << 32) * ((1 << l) - d)) // d + 1
    return (m & U32, min(l, 1), max(l - 1, 0))


def reciprocal_divide(a, r):
    m, sh1, sh2 = r
    a &= U32
    t = (a * m) >> 32
    return ((t + ((a - t) >> sh1)) >> sh2) & U32


# --------------------------------------------------------------------------
# tc's parsing (iproute2 q_netem.c, tc_util.c, utils.c)

class SpecError(Exception):
    pass


_FLOAT = re.compile(r"[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)"
                    r"(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.I)


def strtod(s):
    """C's strtod(): (value, rest); rest == s when nothing converts."""
    m = _FLOAT.match(s)
    if not m:
        return 0.0, s
    txt = m.group(0).strip()
    # "1e" or "1e+": strtod stops before the exponent
    try:
        v = float(txt)
    except ValueError:
        txt = re.sub(r"[eE][+-]?$", "", txt)
        v = float(txt)
        return v, s[len(s) - len(s.lstrip()) + len(txt):]
    return v, s[m.end():]


def strtol(s, base=0):
    """C's strtol()/strtoul() digits: (value, rest); rest == s when
    nothing converts.  Base 0: 0x hex, a leading 0 octal, else decimal."""
    i, n = 0, len(s)
    while i < n and s[i] in " \t\n\v\f\r":
        i += 1
    neg = False
    if i < n and s[i] in "+-":
        neg = s[i] == "-"
        i += 1
    if base in (0, 16) and s[i:i + 2].lower() == "0x" and i + 2 < n and \
            s[i + 2] in "0123456789abcdefABCDEF":
        base, i = 16, i + 2
    elif base == 0:
        base = 8 if i < n and s[i] == "0" else 10
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"[:base]
    j = i
    while j < n and s[j].lower() in digits:
        j += 1
    if j == i:
        return 0, s
    v = int(s[i:j], base)
    return (-v if neg else v), s[j:]


def get_time64(s):
    """utils.c get_time64(): ns; a bare number is ns; truncated."""
    v, p = strtod(s)
    if p == s:
        raise ValueError
    if p:
        u = p.lower()
        if u in ("s", "sec", "secs"):
            v *= NSEC_PER_SEC
        elif u in ("ms", "msec", "msecs"):
            v *= 1000000
        elif u in ("us", "usec", "usecs"):
            v *= 1000
        elif u in ("ns", "nsec", "nsecs"):
            pass
        else:
            raise ValueError
    if v != v or v in (float("inf"), float("-inf")) or abs(v) >= 2 ** 63:
        raise ValueError
    return int(v)       # C's double -> s64 conversion truncates


def parse_percent(s):
    """utils.c parse_percent(): "30%" or "30" -> 0.3; out of [0, 1] or
    trailing junk is an error."""
    v, p = strtod(s)
    v /= 100.0
    if v > 1.0 or v < 0.0 or v != v:
        raise ValueError
    if p and p != "%":
        raise ValueError
    return v


def set_percent(per):
    """q_netem.c set_percent(): rint(per * UINT32_MAX)."""
    return int(round(per * 4294967295.0)) & U32


def get_percent(s):
    return set_percent(parse_percent(s))


def _get_int(s, base, lo, hi):
    if not s:
        raise ValueError
    v, p = strtol(s, base)
    if p == s or p:
        raise ValueError
    if v < lo or v > hi:
        if lo == 0 and v < 0 and -v <= hi:  # strtoul wraps "-1"
            return v & hi
        raise ValueError
    return v


def get_u32(s, base=0):
    return _get_int(s, base, 0, U32)


def get_s32(s, base=0):
    return _get_int(s, base, -0x80000000, INT_MAX)


def get_u64(s, base=10):
    return _get_int(s, base, 0, U64)


def get_size(s):
    """tc_util.c get_size(): bytes, with k/m/g (1024s) and kbit/mbit/gbit."""
    v, p = strtod(s)
    if p == s:
        raise ValueError
    if p:
        u = p.lower()
        mult = {"kb": 1024, "k": 1024, "gb": 1024 ** 3, "g": 1024 ** 3,
                "gbit": 1024 ** 3 // 8, "mb": 1024 ** 2, "m": 1024 ** 2,
                "mbit": 1024 ** 2 // 8, "kbit": 1024 // 8, "b": 1}.get(u)
        if mult is None:
            raise ValueError
        v *= mult
    if v != v or v < 0 or v >= 2 ** 32:
        raise ValueError
    return int(v)


_RATE_SUFFIXES = [("bit", 1.), ("Kibit", 1024.), ("kbit", 1000.),
                  ("mibit", 1024. * 1024.), ("mbit", 1000000.),
                  ("gibit", 1024. * 1024. * 1024.), ("gbit", 1000000000.),
                  ("tibit", 1024. * 1024. * 1024. * 1024.),
                  ("tbit", 1000000000000.), ("Bps", 8.),
                  ("KiBps", 8. * 1024.), ("KBps", 8000.),
                  ("MiBps", 8. * 1024 * 1024), ("MBps", 8000000.),
                  ("GiBps", 8. * 1024. * 1024. * 1024.), ("GBps", 8000000000.),
                  ("TiBps", 8. * 1024. * 1024. * 1024. * 1024.),
                  ("TBps", 8000000000000.)]


def get_rate64(s):
    """tc_util.c get_rate64(): bytes per second (a bare number: bit/s)."""
    v, p = strtod(s)
    if p == s:
        raise ValueError
    if p:
        for name, scale in _RATE_SUFFIXES:
            if name.lower() == p.lower():
                v *= scale
                p = ""
                break
    if p:
        raise ValueError
    v /= 8
    if v != v or v < 0 or v >= 2 ** 64:
        raise ValueError
    return int(v)


def matches(arg, word):
    """utils.c matches(): arg is a non-empty prefix of word."""
    return bool(arg) and word.startswith(arg)


TC_LIB_DIRS = ["/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/tc", "/usr/lib64/tc",
               "/usr/local/lib/tc", "/usr/share/tc"]


def dist_path(name):
    if "/" in name:
        return name
    dirs = ([os.environ["TC_LIB_DIR"]] if os.environ.get("TC_LIB_DIR")
            else []) + TC_LIB_DIRS
    for d in dirs:
        p = os.path.join(d, name + ".dist")
        if os.path.exists(p):
            return p
    return os.path.join(dirs[0], name + ".dist")


def load_dist(name):
    """q_netem.c get_distribution(): every number strtol(.., 0) finds on
    the lines not starting with '#' or empty, as s16; at most 16384."""
    path = dist_path(name)
    try:
        with open(path, "rb") as f:
            raw = f.read().decode("latin-1")
    except OSError as e:
        raise SpecError("no distribution data for %s (%s: %s)"
                        % (name, path, e.strerror))
    data = []
    for line in raw.split("\n"):     # getline(): lines end at '\n' only
        line += "\n"
        if line[:1] in ("\n", "#"):
            continue
        p = line
        while True:
            x, rest = strtol(p, 0)
            if rest == p:
                break
            if len(data) >= NETEM_DIST_MAX:
                raise SpecError("%s: too much data" % path)
            x = max(min(x, (1 << 63) - 1), -(1 << 63))     # strtol clamps
            data.append(s16(x))
            p = rest
    if not data:
        raise SpecError("%s: no data" % path)
    return data


class Conf:
    """What netem_sched_data holds after netem_init()/netem_change() on the
    attributes tc sends, in the kernel's units."""

    def __init__(self):
        self.spec = ""
        self.latency = 0        # s64 ns
        self.jitter = 0         # s64 ns, capped to INT_MAX
        self.limit = 1000
        self.gap = 0
        self.loss = 0
        self.duplicate = 0
        self.reorder = 0
        self.corrupt = 0
        self.rate = 0           # u64 bytes/s
        self.packet_overhead = 0
        self.cell_size = 0
        self.cell_overhead = 0
        # correlations (rho) and whether init_crandom() ran for them
        self.delay_corr = self.loss_corr = self.dup_corr = 0
        self.reorder_corr = self.corrupt_corr = 0
        self.delay_dist = None      # list of s16, or None (uniform)
        self.delay_dist_name = None
        self.loss_model = "random"  # random | 4state | gemodel
        self.a1 = self.a2 = self.a3 = self.a4 = self.a5 = 0
        # slot_config
        self.slot = False       # TCA_NETEM_SLOT given
        self.slot_min = self.slot_max = 0
        self.slot_dist_delay = self.slot_dist_jitter = 0
        self.slot_max_packets = INT_MAX
        self.slot_max_bytes = INT_MAX
        self.slot_dist = None
        self.slot_dist_name = None
        self.seed = None
        self.no_reorder = False

    def slot_active(self):
        return bool(self.slot_min | self.slot_max | self.slot_dist_jitter)

    def random(self):
        """Does anything draw from the PRNG?"""
        return bool(self.jitter or self.loss or self.duplicate or
                    self.corrupt or self.gap or
                    self.loss_model != "random" or
                    (self.slot_active() and (self.slot_dist is not None or
                                             self.slot_min != self.slot_max)))

    def replayable(self):
        """Everything the kernel draws comes from the seeded q->prng."""
        return not (self.slot_active() and self.slot_dist is None and
                    self.slot_min != self.slot_max)

    def show(self):
        keys = ["latency", "jitter", "limit", "gap", "loss", "duplicate",
                "reorder", "corrupt", "rate", "packet_overhead",
                "cell_size", "cell_overhead", "delay_corr", "loss_corr",
                "dup_corr", "reorder_corr", "corrupt_corr",
                "delay_dist_name", "loss_model", "a1", "a2", "a3", "a4",
                "a5", "slot", "slot_min", "slot_max", "slot_dist_delay",
                "slot_dist_jitter", "slot_max_packets", "slot_max_bytes",
                "slot_dist_name", "seed", "no_reorder"]
        out = ["%s %s" % (k, getattr(self, k)) for k in keys]
        if self.delay_dist is not None:
            out.append("delay_dist_size %d" % len(self.delay_dist))
        if self.slot_dist is not None:
            out.append("slot_dist_size %d" % len(self.slot_dist))
        return "\n".join(out)


def parse(spec, require_seed=True):
    """A SPEC in tc-netem(8)'s grammar -> Conf, as tc's netem_parse_opt()
    and the kernel's netem_change() would make it.  SpecError on a bad one,
    naming the word."""
    argv = spec.split()
    c = Conf()
    c.spec = spec
    if argv == ["none"]:
        argv = []
    n = len(argv)
    k = 0               # index of the current word

    def fail(msg, at=None):
        at = k if at is None else at
        where = (" (word %d)" % (at + 1)) if at < n else " (at the end)"
        raise SpecError("netem: '%s': %s%s" % (spec, msg, where))

    def next_arg():
        nonlocal k
        if k + 1 >= n:
            fail("'%s' wants an argument" % argv[k], n)
        k += 1
        return argv[k]

    def next_is_number():
        return k + 1 < n and argv[k + 1][:1].isdigit()

    def next_is_signed_number():
        return k + 1 < n and (argv[k + 1][:1].isdigit() or
                              argv[k + 1][:1] == "-")

    def conv(fn, what):
        try:
            return fn(argv[k])
        except ValueError:
            fail("bad %s '%s'" % (what, argv[k]))

    latency64 = jitter64 = None
    cor = {"delay": 0, "loss": 0, "dup": 0}
    present_corr = False
    reorder_prob = reorder_corr = None
    corrupt_prob = corrupt_corr = None
    loss_type = None
    gi = ge = None
    rate64 = None
    slot = None
    dist_data = None
    while k < n:
        w = argv[k]
        if w == "no-reorder":
            c.no_reorder = True
        elif w == "jitter-ar1":
            fail("jitter-ar1 is not modelled by the golden oracle")
        elif matches(w, "limit"):
            next_arg()
            c.limit = conv(get_size, "limit")
        elif matches(w, "latency") or matches(w, "delay"):
            next_arg()
            latency64 = conv(get_time64, "time")
            if next_is_number():
                next_arg()
                jitter64 = conv(get_time64, "jitter")
                if next_is_number():
                    next_arg()
                    present_corr = True
                    cor["delay"] = conv(get_percent, "correlation")
        elif matches(w, "loss") or matches(w, "drop"):
            if c.loss > 0 or loss_type is not None:
                fail("duplicate loss argument")
            next_arg()
            if argv[k][:1].isdigit() or argv[k] == "random":
                # the random model: tc keeps it in opt.loss, with
                # no loss attribute
                if argv[k] == "random":
                    next_arg()
                c.loss = conv(get_percent, "loss percent")
                if next_is_number():
                    next_arg()
                    present_corr = True
                    cor["loss"] = conv(get_percent, "loss correlation")
            elif argv[k] == "state":
                next_arg()
                p13 = conv(parse_percent, "loss p13")
                gi = {"p13": set_percent(p13),
                      "p31": set_percent(1. - p13),
                      "p32": set_percent(0), "p23": set_percent(1.),
                      "p14": set_percent(0)}
                loss_type = "4state"
                for key in ("p31", "p32", "p23", "p14"):
                    if not next_is_number():
                        break
                    next_arg()
                    gi[key] = conv(get_percent, "loss " + key)
            elif argv[k] == "gemodel":
                next_arg()
                p = conv(parse_percent, "loss gemodel p")
                ge = {"p": set_percent(p), "r": set_percent(1. - p),
                      "h": set_percent(0), "k1": set_percent(0)}
                loss_type = "gemodel"
                if next_is_number():
                    next_arg()
                    ge["r"] = conv(get_percent, "loss gemodel r")
                    if next_is_number():
                        next_arg()
                        ge["h"] = (U32 - conv(get_percent,
                                              "loss gemodel 1-h")) & U32
                        if next_is_number():
                            next_arg()
                            ge["k1"] = conv(get_percent,
                                            "loss gemodel 1-k")
            else:
                fail("unknown loss parameter '%s'" % argv[k])
        elif matches(w, "seed"):
            next_arg()
            c.seed = conv(lambda s: get_u64(s, 10), "seed")
        elif matches(w, "ecn"):
            fail("ecn is not part of the delay role's grammar")
        elif matches(w, "reorder"):
            next_arg()
            reorder_prob = conv(get_percent, "reorder")
            reorder_corr = 0
            if next_is_number():
                next_arg()
                present_corr = True
                reorder_corr = conv(get_percent, "reorder correlation")
        elif matches(w, "corrupt"):
            next_arg()
            corrupt_prob = conv(get_percent, "corrupt")
            corrupt_corr = 0
            if next_is_number():
                next_arg()
                present_corr = True
                corrupt_corr = conv(get_percent, "corrupt correlation")
        elif matches(w, "gap"):
            next_arg()
            c.gap = conv(get_u32, "gap")
        elif matches(w, "duplicate"):
            next_arg()
            c.duplicate = conv(get_percent, "duplicate")
            if next_is_number():
                next_arg()
                # tc does not set present[TCA_NETEM_CORR] here:
                # alone, a duplicate correlation never reaches
                # the kernel (README: correlation)
                cor["dup"] = conv(get_percent, "duplicate correlation")
        elif matches(w, "distribution"):
            name = next_arg()
            if name == "uniform":
                dist_data, c.delay_dist_name = None, "uniform"
            else:
                try:
                    dist_data = load_dist(name)
                except SpecError as e:
                    fail(str(e))
                c.delay_dist_name = name
        elif matches(w, "rate"):
            next_arg()
            if "%" in argv[k]:
                fail("a rate in percent of the link speed is not supported")
            rate64 = conv(get_rate64, "rate")
            if next_is_signed_number():
                next_arg()
                c.packet_overhead = conv(get_s32, "packet overhead")
            if next_is_number():
                next_arg()
                c.cell_size = conv(get_u32, "cell size")
            if next_is_signed_number():
                next_arg()
                c.cell_overhead = conv(get_s32, "cell overhead")
        elif matches(w, "slot"):
            slot = {"min": 0, "max": 0, "dist_delay": 0, "dist_jitter": 0,
                    "packets": 0, "bytes": 0, "dist": None}
            if next_is_number():
                next_arg()
                slot["min"] = conv(get_time64, "slot min delay")
                if next_is_number():
                    next_arg()
                    slot["max"] = conv(get_time64, "slot max delay")
                    if slot["max"] < slot["min"]:
                        fail("slot max delay below min delay")
                else:
                    slot["max"] = slot["min"]
            else:
                next_arg()
                if argv[k] != "distribution":
                    fail("unknown slot parameter '%s'" % argv[k])
                name = next_arg()
                if name == "uniform":
                    fail("slot distribution uniform: say slot MIN MAX")
                try:
                    slot["dist"] = load_dist(name)
                except SpecError as e:
                    fail(str(e))
                c.slot_dist_name = name
                next_arg()
                slot["dist_delay"] = conv(get_time64, "slot delay")
                next_arg()
                slot["dist_jitter"] = conv(get_time64, "slot jitter")
                if slot["dist_jitter"] <= 0:
                    fail("non-positive slot jitter")
            if k + 1 < n and matches(argv[k + 1], "packets"):
                k += 1
                if k + 1 >= n:
                    fail("'packets' wants a number", n)
                k += 1
                slot["packets"] = conv(get_s32, "slot packets")
            if k + 1 < n and matches(argv[k + 1], "bytes"):
                k += 1
                if k + 1 >= n:
                    fail("'bytes' wants a size", n)
                k += 1
                slot["bytes"] = s32(conv(get_size, "slot bytes"))
        else:
            fail("what is '%s'?" % w)
        k += 1

    # tc's checks after the loop
    k = n
    lat = latency64 or 0
    if reorder_prob:
        if lat == 0:
            fail("reordering not possible without specifying some delay")
        if c.gap == 0:
            c.gap = 1
    elif c.gap > 0:
        fail("gap specified without reorder probability")
    if dist_data is not None and (lat == 0 or not jitter64):
        fail("distribution specified but no latency and jitter values")

    # the kernel's netem_change()
    if latency64 is not None and latency64 < 0:
        fail("negative latency")
    if jitter64 is not None and jitter64 < 0:
        fail("negative jitter")
    c.latency = lat
    c.jitter = min(abs(jitter64 or 0), INT_MAX)
    if c.gap:
        c.reorder = U32
    if present_corr:
        c.delay_corr, c.loss_corr, c.dup_corr = \
                cor["delay"], cor["loss"], cor["dup"]
    if reorder_prob is not None:
        c.reorder, c.reorder_corr = reorder_prob, reorder_corr
    if corrupt_prob is not None:
        c.corrupt, c.corrupt_corr = corrupt_prob, corrupt_corr
    if rate64 is not None:
        c.rate = rate64
    c.delay_dist = dist_data
    if loss_type == "4state":
        c.loss_model = "4state"
        c.a1, c.a2, c.a3, c.a4, c.a5 = (gi["p13"], gi["p31"], gi["p32"],
                                        gi["p14"], gi["p23"])
    elif loss_type == "gemodel":
        c.loss_model = "gemodel"
        c.a1, c.a2, c.a3, c.a4 = ge["p"], ge["r"], ge["h"], ge["k1"]
    if slot is not None:
        if slot["min"] < 0 or slot["max"] < 0:
            fail("negative slot delay")
        if slot["dist_delay"] < 0 or slot["dist_jitter"] < 0:
            fail("negative dist delay")
        if slot["packets"] < 0 or slot["bytes"] < 0:
            fail("negative slot limit")
        c.slot = True
        c.slot_min, c.slot_max = slot["min"], slot["max"]
        c.slot_dist_delay = slot["dist_delay"]
        c.slot_dist_jitter = min(INT_MAX, abs(slot["dist_jitter"]))
        c.slot_max_packets = slot["packets"] or INT_MAX
        c.slot_max_bytes = slot["bytes"] or INT_MAX
        c.slot_dist = slot["dist"]
    if require_seed and c.seed is None and c.random():
        fail("'seed N' is needed to replay the kernel's decisions")
    return c


# --------------------------------------------------------------------------
# iproute2's netem/maketable.c: a table from samples (the measure -> table
# half of issue 14's loop)

MT_TABLESIZE = 16384 // 4
MT_TABLEFACTOR = 8192
MT_DOMAIN = 32767 // MT_TABLEFACTOR + 1         # 4
MT_GRANULARITY = 50000
MT_DISTSIZE = MT_DOMAIN * MT_GRANULARITY * 2    # 400000


def read_doubles(text):
    """readdoubles(): fscanf("%lf") until end of file.  A last number not
    followed by anything (no newline) is not counted, as in maketable."""
    words = text.split()
    xs = [float(w) for w in words]
    if xs and text and not text[-1].isspace():
        xs.pop()
    return xs


def arraystats(x):
    """arraystats(): mu, sigma (n - 1) and the lag-1 autocorrelation."""
    n = len(x)
    sumsquare = total = 0.0
    for v in x:
        sumsquare += v * v
        total += v
    mu = total / float(n)
    sigma = math.sqrt((sumsquare - float(n) * mu * mu) / float(n - 1))
    top = sigma2 = 0.0
    for i in range(1, n):
        top += (x[i] - mu) * (x[i - 1] - mu)
        sigma2 += (x[i - 1] - mu) * (x[i - 1] - mu)
    rho = top / sigma2 if sigma2 else float("nan")
    return mu, sigma, rho



def maketable(x):
    """maketable's table (4096 s16) from samples, with mu and sigma.  The
    values are normalised by mu and sigma, histogrammed on [-4, 4) in steps
    of 1/50000, made cumulative and inverted, the holes interpolated."""
    mu, sigma, rho = arraystats(x)
    table = [0] * MT_DISTSIZE
    for v in x:
        inp = (v - mu) / sigma
        idx = int(round((inp + MT_DOMAIN) * MT_GRANULARITY))
        idx = min(max(idx, 0), MT_DISTSIZE - 1)
        table[idx] += 1
    accum = 0
    for i in range(MT_DISTSIZE):
        accum += table[i]
        table[i] = accum
    total = accum
    inv = [-32768] * MT_TABLESIZE
    for i in range(MT_DISTSIZE):
        findex = (float(i) / float(MT_GRANULARITY)) - MT_DOMAIN
        fvalue = float(table[i]) / float(total)
        ii = int(round(fvalue * MT_TABLESIZE))
        iv = int(round(findex * MT_TABLEFACTOR))
        if iv <= -32768:
            iv = -32767
        if iv > 32767:
            iv = 32767
        if ii >= MT_TABLESIZE:
            ii = MT_TABLESIZE - 1
        inv[ii] = iv
    # interpolatetable()
    last, lasti = -32768, -1
    for i in range(MT_TABLESIZE):
        if inv[i] == -32768:
            j = i
            while j < MT_TABLESIZE and inv[j] == -32768:
                j += 1
            if j < MT_TABLESIZE:
                inv[i] = s16(last + cdiv((i - lasti) * (inv[j] - last),
                                         j - lasti))
            else:
                inv[i] = s16(last + cdiv((i - lasti) * (32767 - last),
                                         MT_TABLESIZE - lasti))
        else:
            last, lasti = inv[i], i
    return inv, mu, sigma, rho


def format_table(table):
    """printtable(): what maketable writes."""
    out = ["# This is the distribution table for the experimental "
           "distribution.\n"]
    for i, v in enumerate(table):
        out.append("%d%s" % (v, "\n" if i % 8 == 7 else " "))
    return "".join(out)


# --------------------------------------------------------------------------
# the qdisc

class Pkt:
    __slots__ = ("i", "kind", "len", "tts", "seq")

    def __init__(self, i, kind, length):
        self.i, self.kind, self.len = i, kind, length
        self.tts = 0
        self.seq = 0


class Netem:
    """netem_sched_data's moving parts and the two queues: the tfifo (a
    linear list and an rbtree ordered by time_to_send, ties after) and
    sch->q, the head queue that reordered frames go to."""

    def __init__(self, conf, emit=None):
        c = self.c = conf
        self.prng = prandom_seed_state(c.seed if c.seed is not None else 0,
                                       bool(os.environ.get("NETEM_REF_DRAWS")))
        # What the kernel draws from its unseeded get_random_u32*() comes,
        # as lr_netem.h sets it, from prng2 = prandom_seed_state(seed ^
        # PRNG2_XOR), in this order: at init the initial "last" of the
        # delay, loss, duplicate, reorder and corrupt correlations
        # (init_crandom()), two draws for jitter-ar1's first state; then
        # per corrupted copy of len > 0 the byte and the bit; per uniform
        # slot one draw.  Only the correlations' "last" reach the output.
        self.prng2 = prandom_seed_state(((c.seed or 0) ^ PRNG2_XOR) & U64)
        lasts = [self.prng2.u32() for _ in range(5)]
        self.prng2.u32()
        self.prng2.u32()
        self.delay_cor = Crnd(c.delay_corr, lasts[0])
        self.loss_cor = Crnd(c.loss_corr, lasts[1])
        self.dup_cor = Crnd(c.dup_corr, lasts[2])
        self.reorder_cor = Crnd(c.reorder_corr, lasts[3])
        self.corrupt_cor = Crnd(c.corrupt_corr, lasts[4])
        self.counter = 0
        self.clg_state = 1      # TX_IN_GAP_PERIOD / GOOD_STATE
        self.slot_next = SLOT_CONFIG_TIME if c.slot_active() else 0
        self.packets_left = c.slot_max_packets
        self.bytes_left = c.slot_max_bytes
        self.cell_r = reciprocal_value(c.cell_size) if c.cell_size else None
        self.tlist = collections.deque()    # t_head .. t_tail
        self.rbt = []               # (tts, seq, pkt), sorted
        self.headq = collections.deque()    # sch->q: head .. tail
        self.seq = 0
        self.last_nr_tts = None         # no-reorder
        self.emit = emit or (lambda line: None)

    def qlen(self):
        return len(self.tlist) + len(self.rbt) + len(self.headq)

    # -- loss models
    def loss_4state(self):
        c = self
        rnd = self.prng.u32()
        a1, a2, a3, a4, a5 = (self.c.a1, self.c.a2, self.c.a3, self.c.a4,
                              self.c.a5)
        st = c.clg_state
        if st == 1:         # TX_IN_GAP_PERIOD
            if rnd < a4:
                c.clg_state = 3     # LOST_IN_GAP_PERIOD
                return True
            elif rnd < (a1 + a4) & U32:     # u32 sum: it wraps
                c.clg_state = 4     # LOST_IN_BURST_PERIOD
                return True
            c.clg_state = 1
        elif st == 2:           # TX_IN_BURST_PERIOD
            if rnd < a5:
                c.clg_state = 4
                return True
            c.clg_state = 2
        elif st == 4:           # LOST_IN_BURST_PERIOD
            if rnd < a3:
                c.clg_state = 2
            elif rnd < (a2 + a3) & U32:
                c.clg_state = 1
            else:
                c.clg_state = 4
                return True
        elif st == 3:           # LOST_IN_GAP_PERIOD
            c.clg_state = 1
        return False

    def loss_gilb_ell(self):
        s = self.prng
        c = self.c
        if self.clg_state == 1:     # GOOD_STATE
            if s.u32() < c.a1:
                self.clg_state = 2
            if s.u32() < c.a4:
                return True
        elif self.clg_state == 2:   # BAD_STATE
            if s.u32() < c.a2:
                self.clg_state = 1
            if s.u32() > c.a3:
                return True
        return False

    def loss_event(self):
        m = self.c.loss_model
        if m == "random":
            return bool(self.c.loss) and \
                    self.c.loss >= get_crandom(self.loss_cor, self.prng)
        if m == "4state":
            return self.loss_4state()
        return self.loss_gilb_ell()

    def packet_time_ns(self, length):
        c = self.c
        length = (length + c.packet_overhead) & U64
        if c.cell_size:
            cells = reciprocal_divide(length, self.cell_r)
            if length > (cells * c.cell_size) & U32:
                cells += 1
            length = (cells * ((c.cell_size + c.cell_overhead) & U32)) & U32
        return ((length * NSEC_PER_SEC) & U64) // c.rate

    # -- the tfifo
    def tfifo_enqueue(self, p):
        self.seq += 1
        p.seq = self.seq
        if not self.tlist or p.tts >= self.tlist[-1].tts:
            self.tlist.append(p)
        else:
            bisect.insort(self.rbt, (p.tts, p.seq, p))

    def peek(self):
        if not self.rbt:
            return self.tlist[0] if self.tlist else None
        if not self.tlist:
            return self.rbt[0][2]
        if self.rbt[0][0] < self.tlist[0].tts:
            return self.rbt[0][2]
        return self.tlist[0]

    def erase_head(self, p):
        if self.tlist and p is self.tlist[0]:
            self.tlist.popleft()
        else:
            del self.rbt[0]

    # -- netem_enqueue()
    def enqueue(self, i, length, now, kind="o"):
        c = self.c
        count = 1
        if c.duplicate and kind == "o" and \
                c.duplicate >= get_crandom(self.dup_cor, self.prng):
            count += 1
        if self.loss_event():
            count -= 1
        if count == 0:
            self.emit("E %d %s lost 0 0" % (i, kind))
            return
        dup = count > 1
        corrupt = 0
        if c.corrupt and c.corrupt >= get_crandom(self.corrupt_cor, self.prng):
            corrupt = 1
            if length > 0:      # the byte and the bit: unseeded
                self.prng2.u32()
                self.prng2.u32()
        if self.qlen() >= c.limit:
            # qdisc_drop_all() and the clone freed with it: both copies
            # over the limit, the clone (never enqueued, no draws) first
            if dup:
                self.emit("E %d d limit 0 0" % i)
            self.emit("E %d %s limit 0 %d" % (i, kind, corrupt))
            return
        if dup:
            # the clone goes through the root qdisc's enqueue, not
            # duplicated again, before the original is queued
            self.enqueue(i, length, now, "d")
        p = Pkt(i, kind, length)
        if c.gap == 0 or self.counter < c.gap - 1 or \
                c.reorder < get_crandom(self.reorder_cor, self.prng):
            delay = tabledist(c.latency, c.jitter, self.delay_cor,
                              self.prng, c.delay_dist)
            t0 = now
            if c.rate:
                last = None
                if self.headq:
                    last = self.headq[-1].tts
                if self.rbt:
                    t = self.rbt[-1][0]
                    if last is None or t > last:
                        last = t
                if self.tlist:
                    t = self.tlist[-1].tts
                    if last is None or t > last:
                        last = t
                if last is not None:
                    delay = s64(delay - ((last - t0) & U64))
                    delay = max(0, delay)
                    t0 = last
                delay += self.packet_time_ns(length)
            p.tts = (t0 + delay) & U64
            if c.no_reorder:
                if self.last_nr_tts is not None and \
                        p.tts < self.last_nr_tts:
                    p.tts = self.last_nr_tts
                self.last_nr_tts = p.tts
            self.counter = (self.counter + 1) & U32
            self.tfifo_enqueue(p)
            self.emit("E %d %s queued %d %d" % (i, kind, p.tts, corrupt))
        else:
            p.tts = now
            self.counter = 0
            self.headq.appendleft(p)    # __qdisc_enqueue_head
            self.emit("E %d %s head %d %d" % (i, kind, p.tts, corrupt))

    # -- get_slot_next()
    def get_slot_next(self, now):
        c = self.c
        if c.slot_dist is None:
            r = self.prng2.u32()    # get_random_u32(): unseeded
            next_delay = c.slot_min + (((c.slot_max - c.slot_min) * r) >> 32)
        else:
            next_delay = tabledist(c.slot_dist_delay, c.slot_dist_jitter,
                                   None, self.prng, c.slot_dist)
        self.slot_next = (now + next_delay) & U64
        self.packets_left = c.slot_max_packets
        self.bytes_left = c.slot_max_bytes

    # -- netem_dequeue(), called until it gives nothing
    def dequeue(self, now):
        """One netem_dequeue() at now: the frame sent, or None and the
        time the watchdog was set for (None: not set)."""
        if self.headq:
            return self.headq.popleft(), None
        p = self.peek()
        if p is None:
            return None, None
        tts = p.tts
        if self.slot_next and self.slot_next < tts:
            self.get_slot_next(now)
        if tts <= now and self.slot_next <= now:
            self.erase_head(p)
            if self.slot_next:
                self.packets_left = s32(self.packets_left - 1)
                self.bytes_left = s32(self.bytes_left - p.len)
                if self.packets_left <= 0 or self.bytes_left <= 0:
                    self.get_slot_next(now)
            return p, None
        return None, max(tts, self.slot_next)


def simulate(conf, arrivals, emit):
    """An ideal device behind one netem qdisc.  The qdisc runs (dequeue
    until it gives nothing) after every enqueue, as __dev_xmit_skb() does,
    and when the watchdog fires, at the time netem_dequeue() last set it;
    a watchdog due at or before an arrival fires before it."""
    q = Netem(conf, emit)
    wd = [None]

    def run(now):
        while True:
            p, w = q.dequeue(now)
            if p is None:
                if w is not None:
                    assert w > now
                    wd[0] = w
                return
            emit("D %d %s %d" % (p.i, p.kind, now))

    for i, (t, length) in enumerate(arrivals):
        while wd[0] is not None and wd[0] <= t:
            w, wd[0] = wd[0], None
            run(w)
        q.enqueue(i, length, t)
        run(t)
    while wd[0] is not None:
        w, wd[0] = wd[0], None
        run(w)
    return q


def read_trace(f):
    prev = None
    for lineno, line in enumerate(f, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError("line %d: want 'T_NS LEN'" % lineno)
        t, length = int(parts[0]), int(parts[1])
        if t < 0 or length < 0 or (prev is not None and t < prev):
            raise ValueError("line %d: times must be >= 0 and "
                             "non-decreasing" % lineno)
        prev = t
        yield t, length


def main(argv):
    show = False
    args = argv[1:]
    if args[:1] == ["--maketable"]:
        # maketable: samples on stdin, the table on stdout; mu and sigma
        # (the "delay MU SIGMA" to use it with) on stderr
        xs = read_doubles(sys.stdin.read())
        if len(xs) < 2:
            sys.stderr.write("Nothing much read!\n")
            return 2
        table, mu, sigma, rho = maketable(xs)
        sys.stdout.write(format_table(table))
        sys.stderr.write("%d values, mu %10.4f, sigma %10.4f, rho %10.4f\n"
                         % (len(xs), mu, sigma, rho))
        return 0
    if args and args[0] == "--show":
        show, args = True, args[1:]
    if len(args) != 1:
        sys.stderr.write("usage: netem_ref.py [--show] 'SPEC' < trace\n")
        return 2
    try:
        conf = parse(args[0], require_seed=not show)
    except SpecError as e:
        sys.stderr.write("%s\n" % e)
        return 2
    if show:
        print(conf.show())
        return 0
    if not conf.replayable():
        sys.stderr.write("netem_ref: warning: the kernel draws uniform slots "
                         "(MIN < MAX) unseeded: these follow linerate's "
                         "prng2 convention, not the kernel\n")
    out = sys.stdout
    buf = []

    def emit(line):
        buf.append(line)
        if len(buf) >= 4096:
            out.write("\n".join(buf) + "\n")
            buf.clear()
    try:
        simulate(conf, read_trace(sys.stdin), emit)
    except ValueError as e:
        sys.stderr.write("netem_ref: trace: %s\n" % e)
        return 2
    if buf:
        out.write("\n".join(buf) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
