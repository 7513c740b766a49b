#!/usr/bin/env python3
"""meson install: the binary, linerate(1), the scenarios and their Lua
library where they belong, and an installed binary that runs an installed
scenario with the installed library (under another root too: --destdir).
"""
import json
import os
import re
import shutil
import subprocess

from lrtest import LINERATE, SRC, eal, expect, main, run, tmpdir

BUILD = os.path.dirname(os.path.dirname(LINERATE))


def install():
    """Install the build into a temporary root; return (root, paths) with
    the paths of the build's prefix, bindir, datadir and mandir under it."""
    opts = json.loads(subprocess.run(
        ["meson", "introspect", BUILD, "--buildoptions"], check=True,
        capture_output=True, text=True).stdout)
    opt = {o["name"]: o["value"] for o in opts}
    d = tmpdir()
    r = subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild",
                        "--quiet", "--destdir", d],
                       capture_output=True, text=True, timeout=120)
    expect(r.returncode == 0, r.stdout[-500:] + r.stderr[-500:])
    at = lambda p: d + os.path.join(opt["prefix"], p)
    return d, {"bin": at(opt["bindir"]), "data": at(opt["datadir"]),
               "man": at(opt["mandir"])}


def test_install_runs_an_installed_scenario():
    root, p = install()
    exe = os.path.join(p["bin"], "linerate")
    lua = os.path.join(p["data"], "linerate", "lua")
    expect(os.access(exe, os.X_OK), "no %s" % exe)
    for sub in ("", "lib"):
        want = sorted(f for f in os.listdir(os.path.join(SRC, "lua", sub))
                      if f.endswith(".lua"))
        got = sorted(f for f in os.listdir(os.path.join(lua, sub))
                     if f.endswith(".lua"))
        expect(got == want, "%s: %s, not %s" % (sub or "lua", got, want))
    # A scenario only the installed tree has, run by its name from a
    # directory without one: it is found there, and so is its library.
    open(os.path.join(lua, "zz-where.lua"), "w").write(
        'print("testbed at " .. package.searchpath("testbed", package.path))\n')
    cwd = tmpdir()
    env = dict(os.environ)
    env.pop("LINERATE_LUA_DIR", None)
    r = subprocess.run([exe] + eal("inst1") + ["--", "zz-where"], cwd=cwd,
                       env=env, capture_output=True, text=True, timeout=60)
    expect(r.returncode == 0, r.stderr[-500:])
    m = re.search(r"testbed at (\S+)", r.stdout)
    expect(m and m.group(1) == os.path.join(lua, "lib", "testbed.lua"),
           "installed binary took %r" % r.stdout)
    # An installed scenario that requires testbed, by its name.
    r = subprocess.run([exe] + eal("inst2") + ["--", "quickstart", "count=20000"],
                       cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=120)
    expect(r.returncode == 0 and "quickstart: OK" in r.stdout,
           "rc %d\n%s\n%s" % (r.returncode, r.stdout[-500:], r.stderr[-500:]))
    # LINERATE_LUA_DIR overrides the installed directory.
    other = tmpdir()
    open(os.path.join(other, "zz-where.lua"), "w").write('print("other")\n')
    env["LINERATE_LUA_DIR"] = other
    r = subprocess.run([exe] + eal("inst3") + ["--", "zz-where"], cwd=cwd,
                       env=env, capture_output=True, text=True, timeout=60)
    expect(r.returncode == 0 and r.stdout.strip() == "other",
           r.stdout + r.stderr[-300:])


def sections(text):
    """The rendered page's option lists by table name: OPTIONS' own rows
    (linerate), then each '   NAME options' subsection."""
    out, cur = {}, None
    for line in text.split("\n"):
        if line == "OPTIONS":
            cur = "linerate"
        elif re.match(r"^[A-Z]", line):
            cur = None
        else:
            m = re.match(r"^   ([a-z]+) options$", line)
            if m:
                cur = m.group(1)
        if cur is not None:
            out.setdefault(cur, []).append(line.strip())
    return out


def test_man_page():
    root, p = install()
    page = os.path.join(p["man"], "man1", "linerate.1")
    expect(os.path.exists(page), "no %s" % page)
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page],
                       capture_output=True, text=True)
    expect(r.returncode == 0 and r.stderr == "", "groff: %s" % r.stderr)
    env = dict(os.environ, MANWIDTH="250", LC_ALL="C.UTF-8")
    r = subprocess.run(["man", "--warnings", "-l", page], capture_output=True,
                       text=True, env=env)
    expect(r.returncode == 0 and r.stderr == "", "man: %s" % r.stderr)
    # Overstrike (bold, underline) off; a minus sign is the hyphen typed.
    text = re.sub(r".\x08", "", r.stdout).replace("\u2212", "-").replace("\u2010", "-")
    expect(text.startswith("LINERATE(1)"), text[:200])
    got = sections(text)
    helptext = run(["--help"]).stdout
    tables = ["linerate", "port", "solve", "doctor"] + \
        [t for t in re.findall(r"(?m)^([a-z]+) options:$", helptext) if t != "port"]
    missing, n = [], 0
    for t in tables:
        r = run(["--options-md", t])
        expect(r.returncode == 0, r.stderr)
        for row in r.stdout.splitlines():
            if not row.startswith("| `--"):
                continue
            key = row.split("`")[1].replace("\\|", "|")
            n += 1
            if not any(l == key or l.startswith(key + " ") for l in got.get(t, [])):
                missing.append("%s: %s" % (t, key))
    expect(n >= 120, "only %d options" % n)
    expect(not missing, "linerate(1) lacks:\n" + "\n".join(missing))


if __name__ == "__main__":
    main([test_install_runs_an_installed_scenario, test_man_page])
