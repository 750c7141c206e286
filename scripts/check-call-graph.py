#!/usr/bin/env python3
"""check-call-graph.py - no file of the module calls back into its callers

The module's file-level graph, from its compiled objects: an edge from A.c
to B.c when A's object uses a symbol B's object defines (`nm -u` against
`nm --defined-only`): a function called, a variable read, a static key or
tracepoint used.  A circle in that graph means no file of it can be read,
changed or tested without the others; the layers (hooks, engine, models)
are only layers if none exists.  Every circle is named with the symbol of
each of its edges, and the check fails.

    python3 -m scripts.check-call-graph      build the module against the
                                             test kernel (cached), check it
                                             (from the top of the tree: the
                                             build is eval/vm/'s)
    scripts/check-call-graph.py --objects D  check a module built in D
                                             (`make M=D modules`)

The objects are the module's own list, Kbuild's predictive_prefetch-y: a
file there but not built is an error, so is a source file not listed.
Closes with "N passed, N failed" (one check: the graph has no circle).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

TOP = Path(__file__).resolve().parent.parent

Graph = Dict[str, Dict[str, str]]   # file -> {file it uses: a symbol it uses}


def kbuild_objects(kbuild: Path) -> List[str]:
    """The objects of predictive_prefetch-y in Kbuild, as paths ("mm/x.o")."""
    text = kbuild.read_text()
    m = re.search(r"^predictive_prefetch-y\s*:=((?:.*\\\n)*.*)$", text, re.M)
    if not m:
        raise SystemExit(f"{kbuild}: no predictive_prefetch-y list")
    return re.findall(r"(\S+\.o)", m.group(1))


def nm(obj: Path, *flags: str) -> Set[str]:
    """The symbol names nm prints for obj with flags."""
    out = subprocess.run(["nm", *flags, str(obj)], check=True, text=True,
                         stdout=subprocess.PIPE).stdout
    return {ln.split()[-1] for ln in out.splitlines() if ln.strip()}


def build_graph(objdir: Path, objects: List[str]) -> Graph:
    """Each object's edges to the objects defining what it uses."""
    defined: Dict[str, str] = {}
    used: Dict[str, Set[str]] = {}
    for o in objects:
        path = objdir / o
        if not path.exists():
            raise SystemExit(f"{path}: listed in Kbuild, not built")
        src = o[:-2] + ".c"
        for sym in nm(path, "--defined-only", "--extern-only"):
            defined[sym] = src
        used[src] = nm(path, "--undefined-only")
    graph: Graph = {src: {} for src in used}
    for src, syms in used.items():
        for sym in sorted(syms):
            dst = defined.get(sym)
            if dst and dst != src:
                graph[src].setdefault(dst, sym)
    return graph


def components(graph: Graph) -> List[List[str]]:
    """The strongly connected components of graph with more than one file
    (Tarjan's algorithm, iterative)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: List[Tuple[str, List[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, todo = work[-1]
            if todo:
                w = todo.pop(0)
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, sorted(graph[w])))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def shortest_cycle(graph: Graph, start: str, within: Set[str]) -> Optional[List[str]]:
    """The shortest circle through start inside within (breadth first)."""
    prev: Dict[str, str] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v]):
            if w not in within:
                continue
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in seen:
                seen.add(w)
                prev[w] = v
                queue.append(w)
    return None


def describe(graph: Graph, cycle: List[str]) -> str:
    """a.c -> b.c (symbol) -> ... -> a.c."""
    parts = [cycle[0]]
    for a, b in zip(cycle, cycle[1:]):
        parts.append(f"-> {b} ({graph[a][b]})")
    return " ".join(parts)


def build_module() -> Path:
    """The module built against the base test kernel, as the kernel tests
    build it (eval/vm/kernel.py: cached, W=1 clean); its directory."""
    if not __package__:  # run as a file: eval/ is not importable from here
        sys.exit("check-call-graph: to build the module, run python3 -m "
                 "scripts.check-call-graph from the top of the tree (or give --objects D)")
    from eval.vm import config, kernel  # pylint: disable=import-outside-toplevel
    kdir = kernel.build_kernel(config.BASE)
    return kernel.build_module(kdir, kernel.CACHE).parent


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    ap.add_argument("--objects", type=Path,
                    help="a directory the module was built in (M=); default: build it")
    args = ap.parse_args()
    objdir = args.objects if args.objects else build_module()
    objects = kbuild_objects(objdir / "Kbuild")
    # The sources: this checkout's, or those built in D (a build directory
    # keeps the objects of files since removed, which are not linked).
    srcdir = args.objects if args.objects else TOP
    sources = {str(p.relative_to(srcdir))[:-2] + ".o" for d in ("fs", "mm", "models")
               for p in (srcdir / d).rglob("*.c")}
    unlisted = sorted(sources - set(objects))
    for o in unlisted:
        print(f"{o[:-2]}.c: not in Kbuild's predictive_prefetch-y")
    graph = build_graph(objdir, objects)
    edges = sum(len(e) for e in graph.values())
    print(f"{len(graph)} files, {edges} file-to-file uses")
    comps = components(graph)
    for comp in comps:
        within = set(comp)
        print(f"circle of {len(comp)} files: {' '.join(comp)}")
        shown: Set[Tuple[str, ...]] = set()
        for f in comp:
            cycle = shortest_cycle(graph, f, within)
            if not cycle:
                continue
            # The same circle, met from another of its files, once.
            i = cycle.index(min(cycle[:-1]))
            key = tuple(cycle[i:-1] + cycle[:i])
            if key in shown:
                continue
            shown.add(key)
            print("  " + describe(graph, list(key) + [key[0]]))
    failed = 1 if comps or unlisted else 0
    print(f"{1 - failed} passed, {failed} failed")
    return failed


if __name__ == "__main__":
    sys.exit(main())
