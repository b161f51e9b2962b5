"""The fleet on a real distributed engine (issue 31, item 4; docs/fleet.md): a Dask
scheduler and two Dask worker processes, started as separate programs, one job per
capture (each job runs `tcpdiag --format json FILE`, as a host of the fleet would),
the records collected into one folder and loaded with docs/fleet/flows.sql into
DuckDB. The table must be the one `tcpdiag -j 2` makes on one machine, row for row,
and the jobs must have run on both workers.

Dask comes from Debian (python3-distributed); `.ci/run` installs it and runs this
file. Where it is not installed the test is skipped, and says so."""
import json
import subprocess
import sys
import time

import duckdb
import pytest

import command
from tshark import CAPTURES, ROOT

distributed = pytest.importorskip("distributed", reason="Dask (Debian python3-distributed) is not installed")

PCAPS = sorted(CAPTURES.glob("*.pcap"))
FLOWS_SQL = (ROOT / "docs" / "fleet" / "flows.sql").read_text()


def table(folder):
    """The flows view over a folder of tcpdiag-*.ndjson, every column, in one order."""
    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{folder}'")
    con.execute(FLOWS_SQL)
    cur = con.execute('SELECT * FROM flows ORDER BY file, "tcp.stream"')
    return [d[0] for d in cur.description], cur.fetchall()


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two single-threaded workers, each its own process, found
    through a scheduler file; stopped afterwards."""
    scheduler_file = tmp_path / "scheduler.json"
    common = ["--no-dashboard"]
    processes = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                   "--port", "0", "--scheduler-file", scheduler_file] + common,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    deadline = time.monotonic() + 60
    while not scheduler_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    for _ in range(2):
        processes.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                                           scheduler_file, "--nthreads", "1", "--nworkers", "1"] + common,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    client = distributed.Client(scheduler_file=str(scheduler_file), timeout=60)
    try:
        client.wait_for_workers(2, timeout=60)
        yield client
    finally:
        client.close()
        for proc in reversed(processes):
            proc.terminate()
        for proc in processes:
            proc.wait(timeout=30)


def test_the_distributed_fleet_makes_the_one_machine_table(cluster, tmp_path):
    # One job per capture: the command on one file, as a host of the fleet runs it (a
    # function of the standard library, which every worker can unpickle).
    tcpdiag = str(command.command_path())
    jobs = cluster.map(subprocess.run, [[tcpdiag, "--format", "json", str(p)] for p in PCAPS],
                       capture_output=True, text=True, pure=False)
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    for pcap, done in zip(PCAPS, cluster.gather(jobs)):
        assert done.returncode == 0, (pcap, done.stderr)
        (fleet / f"tcpdiag-{pcap.name}.ndjson").write_text(done.stdout)
    workers = {w for job in cluster.who_has(jobs).values() for w in job}
    assert len(workers) == 2, workers          # the jobs ran on both worker processes

    one = tmp_path / "one"
    one.mkdir()
    (one / "tcpdiag-all.ndjson").write_text(command.run(["-j", 2, "--format", "json"] + PCAPS).stdout)

    columns, rows = table(fleet)
    assert (columns, rows) == table(one)
    flows = sum(1 for p in PCAPS for line in (fleet / f"tcpdiag-{p.name}.ndjson").read_text().splitlines()
                if json.loads(line)["record"] == "flow")
    assert len(rows) == flows > 0
