"""Running the tcpdiag command from a build tree, for the tests."""
import functools
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def command_path():
    """The command beside the plugin folder under test (build/plugin-dir → build/cmd)."""
    plugin_dir = pathlib.Path(os.environ.get("TCPDIAG_PLUGIN_DIR", ROOT / "build" / "plugin-dir"))
    return plugin_dir.parent / "cmd" / "tcpdiag"


def run(args, check=True, cwd=None):
    proc = subprocess.run([str(command_path())] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)
    if check and proc.returncode != 0:
        raise AssertionError(f"tcpdiag failed ({proc.returncode}): {args}\n{proc.stderr}")
    return proc


def records(*files, jobs=1, options=()):
    """Every NDJSON record of the files: one per flow ("record": "flow"), then one per
    file ("record": "file"); options: more arguments."""
    out = run(["-j", jobs, "--format", "json"] + list(options) + list(files)).stdout
    return [json.loads(line) for line in out.splitlines()]


def flows(*files, jobs=1, options=()):
    """The NDJSON records of the files, one dict per flow; options: more arguments."""
    return [r for r in records(*files, jobs=jobs, options=options) if r["record"] == "flow"]


@functools.lru_cache(maxsize=None)
def _fixed_addresses():
    """`setarch -R`, where the kernel lets it turn address randomisation off; else nothing."""
    ok = subprocess.run(["setarch", "-R", "true"], capture_output=True).returncode == 0
    return ["setarch", "-R"] if ok else []


def peak_kib(args):
    """The command's peak resident memory in KiB (GNU time's, from a small parent: a
    child started from Python would inherit Python's high-water mark across exec), its
    output thrown away. Under `setarch -R`: with its addresses randomised, one run's
    peak moved by up to 5 % from the next on the same file (9,148 to 9,628 KiB), which
    a 10 % bound between two files could not tell from growth; with them fixed, every
    run of a build on a file peaks the same (as test/bench/cost-guard counts)."""
    proc = subprocess.run([*_fixed_addresses(), "/usr/bin/time", "-f", "%M", str(command_path()), *map(str, args)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300, check=True)
    return int(proc.stderr.split()[-1])
