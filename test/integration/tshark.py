"""Running tshark with the tcpdiag plugin from a build tree, for the tests."""
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "captures"
RUNNER = ROOT / "test" / "tshark-with-plugin"


def plugin_dir():
    return pathlib.Path(os.environ.get("TCPDIAG_PLUGIN_DIR", ROOT / "build" / "plugin-dir"))


def run(args, plugin=None, check=True, environ=None):
    """Runs tshark; returns the CompletedProcess (text). environ: extra variables for
    test/tshark-with-plugin (TCPDIAG_PROFILES)."""
    cmd = [str(RUNNER), str(plugin or plugin_dir())] + [str(a) for a in args]
    env = dict(os.environ, **(environ or {}))
    if os.environ.get("TCPDIAG_TSHARK_PRELOAD"):      # sanitizer runtime for the ASan build
        env["LD_PRELOAD"] = os.environ["TCPDIAG_TSHARK_PRELOAD"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"tshark failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return proc


def fields(pcap, names, two_pass=True, extra=()):
    """One dict per packet: field name -> printed value ('' when absent)."""
    args = ["-r", pcap, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
            "-E", "aggregator=,"]
    if two_pass:
        args.append("-2")
    args += list(extra)
    for name in names:
        args += ["-e", name]
    out = run(args).stdout
    rows = []
    for line in out.splitlines():
        values = line.split("\t")
        values += [""] * (len(names) - len(values))
        rows.append(dict(zip(names, values)))
    return rows
