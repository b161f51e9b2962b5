#!/usr/bin/python3
"""The project's own include graph, one node per module (a .c and its .h are one
module), must have no cycle: a module that includes another's header depends on it,
and two modules that depend on each other are one concern split in two.

    test/arch/include_cycles.py [ROOT]     exit 0 when acyclic, 1 with each cycle printed
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
FOLDERS = ("engine", "engine/causes", "plugin", "cmd", "report")


def modules(root):
    """module name (folder/stem) -> the set of modules whose headers it includes."""
    by_header = {}
    sources = []
    for folder in FOLDERS:
        for path in sorted((root / folder).glob("*.[ch]")):
            by_header.setdefault(path.name, f"{folder}/{path.stem}")
            sources.append(path)
    graph = {}
    for path in sources:
        me = f"{path.parent.name}/{path.stem}"
        deps = graph.setdefault(me, set())
        for name in INCLUDE.findall(path.read_text()):
            other = by_header.get(pathlib.PurePath(name).name)
            if other and other != me:
                deps.add(other)
    return graph


def cycles(graph):
    """Every strongly connected component of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    found = cycles(modules(root))
    for component in found:
        print("include cycle:", " <-> ".join(component))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
