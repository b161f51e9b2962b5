"""The guard on cost (issue 38): the plugin's and the command's instructions a packet,
counted by callgrind on fixed slices, within 2 % of the budgets committed in
test/bench/cost-budgets.json (test/bench/cost-guard). callgrind counts the same on a
busy machine and a quiet one, so the guard needs no quiet machine. It skips only where
it cannot count: no valgrind (./run installs it), a sanitizer build (other code, other
counts), or a machine whose Wireshark, libpcap, GLib or GCC differ from the budgets'."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GUARD = ROOT / "test" / "bench" / "cost-guard"
UNCOMPARABLE = 77


def test_cost_within_budgets():
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed (./run test installs it)")
    plugin_dir = pathlib.Path(os.environ.get("TCPDIAG_PLUGIN_DIR", ROOT / "build" / "plugin-dir"))
    if os.environ.get("TCPDIAG_TSHARK_PRELOAD") or plugin_dir.parent.name in ("build-asan", "build-tsan"):
        pytest.skip("a sanitizer build: its instruction counts are not the budgets'")
    proc = subprocess.run([str(GUARD), "--build", str(plugin_dir.parent)], capture_output=True, text=True,
                          timeout=1800)
    print(proc.stdout)
    if proc.returncode == UNCOMPARABLE:
        pytest.skip(proc.stdout.strip())
    assert proc.returncode == 0, proc.stdout + proc.stderr
