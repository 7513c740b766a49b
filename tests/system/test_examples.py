#!/usr/bin/env python3
"""Every annotated example under lua/examples/ runs to its end."""
import glob
import os

from lrtest import SRC, eal, expect, main, run


def test_examples():
    scripts = sorted(glob.glob(os.path.join(SRC, "lua", "examples", "*.lua")))
    expect(len(scripts) >= 5, scripts)
    for s in scripts:
        r = run(eal("ex") + ["--", "--no-live", s], timeout=120)
        expect(r.returncode == 0, "%s: rc %d\n%s" % (s, r.returncode, r.stderr[-800:]))


if __name__ == "__main__":
    main([test_examples])
