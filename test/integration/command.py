"""Running the tcpdiag command from a build tree, for the tests."""
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


def peak_kib(args):
    """The command's peak resident memory in KiB (GNU time's, from a small parent: a
    child started from Python would inherit Python's high-water mark across exec), its
    output thrown away."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", str(command_path()), *map(str, args)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300, check=True)
    return int(proc.stderr.split()[-1])
