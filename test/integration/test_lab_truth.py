"""The lab's generator against its committed expected files: the diagnosis expectations
captures/lab/diagnosis_truth.py derives from a scenario's logged configuration are those
its committed files hold. A reason that changes a committed verdict must change the
generator too, or a fresh run of the scenario expects the old verdict (syn-retry-crossing
read round-trip-bound in its files since 4a913bd and none in the generator, until
c05f3e2). The same walk as `lab.py --rewrite-diag`, without writing."""
import copy
import json
import sys

import pytest

from tshark import CAPTURES

LAB = CAPTURES / "lab"
sys.path.insert(0, str(LAB))
import lab  # noqa: E402  (captures/lab: the generator, standard library only)

JUDGED = ("tcpdiag.diag.cause", "tcpdiag.host.stall", "tcpdiag.cc.algorithm")


@pytest.mark.parametrize("name", lab.diag_scenarios())
def test_the_generator_expects_what_the_files_say(name):
    log = json.loads((LAB / "logs" / f"{name}.json").read_text())
    for suffix in log["config"]["captures"]:
        path = CAPTURES / f"lab-{name}{suffix}.expected.json"
        committed = json.loads(path.read_text())
        for i, flow in enumerate(committed["flows"]):
            derived = lab.add_diag(copy.deepcopy(flow), lab.conn_cfg(log["config"], i), i)
            for field in JUDGED:
                assert derived["expect"].get(field) == flow["expect"].get(field), \
                    f"{path.name} flow {i} {field}: the generator says {derived['expect'].get(field)!r}"
