#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The include graph of linerate's C sources, and what breaks its layering.

Reads every #include "..." line of app/, lib/ and firmware-model/ and prints
the graph between folders (--files: between files), then
  - every include from a lower library to a higher one (LAYERS below), and
  - every circle between files of different folders.
Exit 1 when there is any of either that ALLOWED does not name, else 0.

A header stands for the .c files that define what it declares: engine.c
including lr_port.h depends on port.c, so that engine.c -> lr_port.h ->
port.c -> lr_engine.h -> engine.c is a circle between two files even though
no .c includes another. A .c defines a name when the name starts a line
(kernel style puts a function's type on the line before) outside a static
function or variable; a header declares it when it names it outside its
comments.

Circles inside one folder are listed as well (they are no error: a folder is
one library), so that a folder's own tree can be checked by eye.

    tools/includes.py             the graph between folders, the checks
    tools/includes.py --files     the graph between files
    tools/includes.py --dot       the folder graph as Graphviz dot
"""

import argparse
import os
import re
import sys

ROOTS = ("app", "lib", "firmware-model")

# The layering, lowest first: a folder may include its own and any lower
# layer's headers; folders of one layer may include each other's, as long
# as no circle runs between their files. This order is the one place it is
# written (doc/architecture.md describes it).
LAYERS = (
    ("lib/common",),
    ("lib/hist",),
    ("lib/pkt",),
    ("lib/flowext",),
    ("lib/netem",),
    ("lib/ipfix",),
    ("firmware-model",),
    ("lib/port",),
    ("lib/engine",),
    # The roles' libraries, those another role builds on first.
    ("lib/distributor", "lib/gen", "lib/rx", "lib/latency", "lib/doctor"),
    ("lib/probe", "lib/delay", "lib/reflect", "lib/rtt"),
    # lib/roles: the list of built-in roles.
    ("lib/roles",),
    ("lib/lua",),
    ("app",),
)

# Known breaks that other work in progress removes, each an exact edge
# (including file, included file). Keep this empty when nothing is open.
ALLOWED = {
}

# Comments and string literals: names there are no declarations.
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                     re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A definition at the start of a line: "name(" of a function, or the name of
# a variable before "=", "[" or ";" on a line that gives its type.
DEF_FUNC = re.compile(r"^([A-Za-z_]\w*)\s*\(", re.M)
DEF_VAR = re.compile(r"^(?!static\b|typedef\b|extern\b)(?=[A-Za-z_])[^\n(;]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:=|;)", re.M)
# A log type DPDK's macro defines (RTE_LOG_REGISTER(name, ...)).
DEF_LOG = re.compile(r"^RTE_LOG_REGISTER\w*\(\s*([A-Za-z_]\w*)", re.M)
WORD = re.compile(r"[A-Za-z_]\w*")


def layer_of(folder):
    for i, names in enumerate(LAYERS):
        if folder in names:
            return i
    return None


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def sources(root):
    out = []
    for top in ROOTS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for n in sorted(files):
                if n.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, n), root))
    return out


def defined_names(text):
    """Names a .c file defines for others: not static, at a line's start."""
    names = set()
    lines = text.split("\n")
    for m in DEF_FUNC.finditer(text):
        # The type is on the line before: a static function is no one
        # else's.
        ln = text.count("\n", 0, m.start())
        prev = lines[ln - 1] if ln > 0 else ""
        if re.match(r"\s*static\b", prev) or prev.rstrip().endswith((";", ",")):
            continue
        if m.group(1) in ("if", "for", "while", "switch", "return", "sizeof"):
            continue
        names.add(m.group(1))
    for m in DEF_VAR.finditer(text):
        names.add(m.group(1))
    for m in DEF_LOG.finditer(text):
        names.add(m.group(1))
    names.discard("RTE_LOG_REGISTER")
    return names


def build(root):
    files = sources(root)
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    text = {f: COMMENT.sub(" ", read(os.path.join(root, f))) for f in files}
    includes = {}	# file -> [(included file, line)]
    unresolved = []
    for f in files:
        raw = read(os.path.join(root, f))
        inc = []
        for m in INCLUDE.finditer(raw):
            name = m.group(1)
            line = raw.count("\n", 0, m.start()) + 1
            own = os.path.normpath(os.path.join(os.path.dirname(f), name))
            if own in text:
                inc.append((own, line))
            elif len(by_name.get(os.path.basename(name), [])) == 1:
                inc.append((by_name[os.path.basename(name)][0], line))
            else:
                # a system or generated header (or a name that is not
                # unique: said, never guessed)
                if by_name.get(os.path.basename(name)):
                    unresolved.append((f, line, name))
        includes[f] = inc
    # Which .c files keep a header's promises.
    defs = {}
    for f in files:
        if f.endswith(".c"):
            for n in defined_names(text[f]):
                defs.setdefault(n, set()).add(f)
    impl = {}
    for f in files:
        if f.endswith(".h"):
            words = set(WORD.findall(text[f]))
            impl[f] = set()
            for w in words:
                impl[f] |= defs.get(w, set())
    return files, includes, impl, unresolved


def file_graph(files, includes, impl):
    """Edges between units: a .c, or a header nothing implements. A header
    with .c files behind it stands for them, and its own includes are
    theirs."""
    def units(h, src):
        if h.endswith(".c"):
            return {h}
        return (impl[h] - {src}) if impl[h] else {h}

    g = {}
    for f in files:
        srcs = [f] if f.endswith(".c") or not impl[f] else sorted(impl[f])
        for s in srcs:
            g.setdefault(s, set())
            for h, _ in includes[f]:
                g[s] |= units(h, s)
    for s in g:
        g[s].discard(s)
    return g


def sccs(g):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for v0 in sorted(g):
        if v0 in index:
            continue
        work = [(v0, iter(sorted(g.get(v0, ()))))]
        index[v0] = low[v0] = counter[0]
        counter[0] += 1
        stack.append(v0)
        on.add(v0)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def a_cycle(g, comp):
    """One circle through the component's first file, for the report."""
    comp = set(comp)
    start = min(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(g.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start]
            if w in comp and w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", action="store_true",
                    help="print the graph between files, not folders")
    ap.add_argument("--dot", action="store_true",
                    help="print the folder graph as Graphviz dot")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), ".."), help="the source tree")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    files, includes, impl, unresolved = build(root)
    folder = {f: os.path.dirname(f) for f in files}

    missing = sorted({folder[f] for f in files if layer_of(folder[f]) is None})
    for d in missing:
        print(f"includes: folder {d} has no layer in tools/includes.py's "
              "LAYERS", file=sys.stderr)

    if a.dot:
        edges = {}
        for f in files:
            for h, _ in includes[f]:
                if folder[f] != folder[h]:
                    edges[(folder[f], folder[h])] = edges.get(
                        (folder[f], folder[h]), 0) + 1
        print("digraph includes {\n\trankdir=BT;")
        for (s, d), n in sorted(edges.items()):
            print(f'\t"{s}" -> "{d}" [label={n}];')
        print("}")
        return 0

    if a.files:
        print("# the graph between files (a header stands for the .c files "
              "that define what it declares)")
        g = file_graph(files, includes, impl)
        for s in sorted(g):
            if g[s]:
                print(f"{s} -> {', '.join(sorted(g[s]))}")
    else:
        print("# the graph between folders: includes from -> to (count)")
        edges = {}
        for f in files:
            for h, _ in includes[f]:
                if folder[f] != folder[h]:
                    edges.setdefault(folder[f], {}).setdefault(folder[h], 0)
                    edges[folder[f]][folder[h]] += 1
        for s in sorted(edges, key=lambda d: (layer_of(d) or 0, d)):
            print(f"{s} -> " + ", ".join(
                f"{d} ({n})" for d, n in sorted(edges[s].items())))

    bad = 0
    print("\n# includes from a lower library to a higher one")
    n = 0
    for f in files:
        lf = layer_of(folder[f])
        for h, line in includes[f]:
            lh = layer_of(folder[h])
            if lf is None or lh is None or lh <= lf:
                continue
            allowed = (f, h) in ALLOWED
            print(f"{f}:{line}: includes {h} ({folder[f]} is below "
                  f"{folder[h]})" + ("  [allowed: " + ALLOWED[(f, h)] + "]"
                                     if allowed else ""))
            n += 1
            bad += not allowed
    if n == 0:
        print("none")

    g = file_graph(files, includes, impl)
    print("\n# circles between files of different folders")
    n = 0
    inner = []
    for comp in sccs(g):
        if len({folder[f] for f in comp}) == 1:
            inner.append(comp)
            continue
        cyc = a_cycle(g, comp)
        # A circle is allowed only when an allowed include line breaks it.
        allowed = any((f, h) in ALLOWED for f in comp
                      for h, _ in includes.get(f, ()) if h in comp or
                      impl.get(h, set()) & set(comp))
        print(" -> ".join(cyc) + (f"  ({len(comp)} files)" if len(comp) >
                                  len(cyc) - 1 else "") +
              ("  [allowed]" if allowed else ""))
        n += 1
        bad += not allowed
    if n == 0:
        print("none")
    print("\n# circles inside one folder (not an error)")
    for comp in inner:
        print(" -> ".join(a_cycle(g, comp)))
    if not inner:
        print("none")
    seen = {(f, h) for f in files for h, _ in includes[f]}
    for f, h in sorted(set(ALLOWED) - seen):
        print(f"includes: ALLOWED names {f} -> {h}, which is gone: take it "
              "out of tools/includes.py", file=sys.stderr)
    for f, line, name in unresolved:
        print(f"{f}:{line}: \"{name}\" is not one file of the tree",
              file=sys.stderr)
    if missing or unresolved:
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
