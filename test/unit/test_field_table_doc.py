#!/usr/bin/env python3
"""docs/fields.md against the field table (engine/field_table.c), and the table as the
only place C spells a field name.

  test_field_table_doc.py TABLE_PROGRAM SOURCE_DIR

TABLE_PROGRAM --print lists the table (test_field_table.c). Every field of the table has
a row in the doc with its type and a meaning, every field the doc's tables list is in
the table, every expert item is documented with its group and severity; and no C
file outside engine/field_table.c and test/ holds a "tcpdiag.<field>" string."""
import pathlib
import re
import subprocess
import sys

NAME = re.compile(r"`(tcpdiag\.[a-z0-9_.]+)`")
EXPERT_SEVERITY = re.compile(r"^(Protocol|Sequence) / (Chat|Note|Warning)$")
# A field name in a C string: "tcpdiag." followed by more of a name ("tcpdiag.h" is a header).


def table(program):
    fields, experts = {}, {}
    for line in subprocess.run([program, "--print"], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        name, kind, scope, label, description = line.split("\t")
        if kind == "expert":
            experts[name] = scope
        else:
            fields[name] = kind
    return fields, experts


def doc_rows(text):
    """(names, types, meaning) of every table row that documents tcpdiag names."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 3:
            continue
        names = NAME.findall(cells[0])
        if names:
            types = [re.sub(r"\s*\([^)]*\)", "", t).strip() for t in cells[1].split(",")]
            yield names, types, cells[2]


def check_doc(fields, experts, text):
    problems = []
    documented = {}
    for names, types, meaning in doc_rows(text):
        if len(types) not in (1, len(names)):
            problems.append(f"{names}: {len(types)} types for {len(names)} fields")
            continue
        for i, name in enumerate(names):
            documented[name] = (types[i if len(types) > 1 else 0], meaning)
    # Expert items are also described in prose: `name` (Group / Severity, ...)
    for name, group, severity in re.findall(r"`(tcpdiag\.[a-z0-9_.]+)`\s+\((Protocol|Sequence) / (\w+)", text):
        documented.setdefault(name, (f"{group} / {severity}", "prose"))
    for name, kind in fields.items():
        if name not in documented:
            problems.append(f"{name}: in the table, not in docs/fields.md")
        elif documented[name][0] != kind:
            problems.append(f"{name}: {kind} in the table, {documented[name][0]} in docs/fields.md")
        elif not documented[name][1]:
            problems.append(f"{name}: no meaning in docs/fields.md")
    for name, severity in experts.items():
        if documented.get(name, ("",))[0] != severity:
            problems.append(f"expert {name}: {severity} in the table, "
                            f"{documented.get(name, ('nothing',))[0]} in docs/fields.md")
    for name, (kind, _) in documented.items():
        if name not in fields and name not in experts:
            problems.append(f"{name}: in docs/fields.md ({kind}), not in the table")
    return problems


def field_name_pattern(names):
    """A quoted field or expert name, or the start of one ("tcpdiag.flight." built on):
    tcpdiag.<area>... for an area of the table. Other tcpdiag.* strings are not fields
    (the plugin's header "tcpdiag.h", preference names such as "tcpdiag.max_flows")."""
    areas = sorted({name.split(".")[1] for name in names})
    return re.compile(r'"tcpdiag\.(?:%s)(?:[."])' % "|".join(map(re.escape, areas)))


def spelled_outside_table(root, pattern):
    out = []
    for path in sorted(root.rglob("*.[ch]")):
        relative = path.relative_to(root)
        if relative.parts[0] in ("test", "build") or relative.parts[0].startswith("build") \
                or relative == pathlib.Path("engine/field_table.c"):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if pattern.search(line):
                out.append(f"{relative}:{number}: {line.strip()}")
    return out


def main():
    program, root = sys.argv[1], pathlib.Path(sys.argv[2])
    fields, experts = table(program)
    problems = check_doc(fields, experts, (root / "docs" / "fields.md").read_text())
    pattern = field_name_pattern(list(fields) + list(experts))
    problems += [f"field name outside engine/field_table.c: {hit}" for hit in spelled_outside_table(root, pattern)]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
