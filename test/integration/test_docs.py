"""The docs cannot drift (issue 20, point 6): every shell command in a code block of
README.md or docs/*.md that starts with `tcpdiag ` or `tshark ` is run on the
bundled captures, and the output the doc shows under a `$ ` command is checked
against what the command really prints. A command whose input is not in the
repository (a placeholder such as capture.pcap or F, a customer folder, standard
input) is skipped, and the skip says which file is missing."""
import pathlib
import re
import shlex

import pytest

import command
import tshark
from tshark import ROOT

DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
PROGRAMS = ("tcpdiag ", "tshark ")
# What the docs leave out of a report: tshark's framing (blank lines and the rules
# around each -z report), which carries no answer.
FRAME = re.compile(r"^(=+)?$")


def shown_commands():
    """(doc, line number, command, the output lines the doc shows or None) of every
    command in a fenced code block. A command continued with a backslash is joined;
    in the two-column README table only the command column that starts the line counts."""
    found = []
    for doc in DOCS:
        lines = doc.read_text().splitlines()
        in_block, i = False, 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if line.lstrip().startswith("```"):
                in_block = not in_block
                continue
            text = line.strip()
            prompted = text.startswith("$ ")
            text = text[2:] if prompted else text
            # a command, not prose in a diagram: its first argument is an option
            if not in_block or not text.startswith(PROGRAMS) or not text.split()[1].startswith("-"):
                continue
            start = i
            while text.endswith("\\") and i < len(lines):
                text = text[:-1] + " " + lines[i].strip()
                i += 1
            output = None
            if prompted:
                output = []
                while i < len(lines) and not lines[i].lstrip().startswith(("```", "$ ")):
                    output.append(lines[i])
                    i += 1
            found.append((doc.relative_to(ROOT), start, text, output))
    return found


COMMANDS = shown_commands()


def input_of(argv):
    """The capture or folder a command reads: tshark's -r value, tcpdiag's last argument."""
    return argv[argv.index("-r") + 1] if argv[0] == "tshark" else argv[-1]


def runnable(text):
    """The command's arguments, or the reason it cannot run here. In the README's
    two-column table, the first column ends at two spaces."""
    text = text.split(" #")[0].split("   ")[0].rstrip(" \\")
    if re.search(r"[|>*…]|\$\(|\$[A-Z]", text):
        return None, "elided (…), or a pipe, redirection, glob or variable: its input is a customer's"
    argv = shlex.split(text)
    source = input_of(argv)
    if source == "-" or not (ROOT / source).exists():
        return None, f"its input {source} is a placeholder, not a file in the repository"
    return argv, None


def run_shown(argv):
    if argv[0] == "tcpdiag":
        return command.run(argv[1:], cwd=ROOT).stdout
    return tshark.run([ROOT / a if (ROOT / a).is_file() and not a.startswith("-") else a for a in argv[1:]]).stdout


def segments(shown):
    """The doc's output cut at its "..." lines, framing left out."""
    parts = [[]]
    for line in shown:
        if line.strip() == "...":
            parts.append([])
        elif not FRAME.match(line.strip()):
            parts[-1].append(line.rstrip())
    return [p for p in parts if p]


def test_the_docs_show_commands_that_run_here():
    """Enough commands run on bundled captures for the test to mean something."""
    ran = [c for c in COMMANDS if runnable(c[2])[0]]
    assert len([c for c in ran if c[3]]) >= 3
    assert {c[2].split()[0] for c in ran} == {"tcpdiag", "tshark"}


@pytest.mark.parametrize("doc, line, text, shown", COMMANDS, ids=[f"{c[0]}:{c[1]}" for c in COMMANDS])
def test_a_doc_command_prints_what_the_doc_shows(doc, line, text, shown):
    argv, why_not = runnable(text)
    if not argv:
        pytest.skip(f"{doc}:{line}: {why_not}")
    out = [l.rstrip() for l in run_shown(argv).splitlines() if not FRAME.match(l.strip())]
    if not shown:
        return      # it ran, exit status 0: the options and the file it names exist
    parts = segments(shown)
    assert out[:len(parts[0])] == parts[0], f"{doc}:{line}: the first lines differ"
    at = len(parts[0])
    for part in parts[1:]:
        # after a "...", the lines shown come later in the output, in order
        starts = [k for k in range(at, len(out) - len(part) + 1) if out[k:k + len(part)] == part]
        assert starts, f"{doc}:{line}: not in the output after line {at}: {part[0]}"
        at = starts[0] + len(part)
