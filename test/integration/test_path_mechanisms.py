"""Issue 30's path and sender mechanisms (pmtu-blackhole, options-stripped,
slow-start-restart) name only the flows made to show them: over every committed
capture (captures/, lab/next, lab/mech) no other flow has one among its causes, not
even below its primary one. A false alarm on a healthy flow is as bad as a miss."""
import json

import pytest

import command
from lab_next import MECH, NEXT
from tshark import CAPTURES

MECHANISMS = {"pmtu-blackhole", "options-stripped", "slow-start-restart"}
PCAPS = sorted(CAPTURES.glob("*.pcap")) + sorted(NEXT.glob("*.pcap")) + sorted(MECH.glob("*.pcap"))


def made_to_show():
    """(pcap name, tcp.stream) -> cause, for the mech flows whose making names one."""
    made = {}
    for path in MECH.glob("*.expected.json"):
        for flow in json.loads(path.read_text())["flows"]:
            if flow["expect"]["tcpdiag.diag.cause"] in MECHANISMS:
                made[(path.name.replace(".expected.json", ".pcap"), flow["select"]["tcp.stream"])] = \
                    flow["expect"]["tcpdiag.diag.cause"]
    return made


MADE = made_to_show()


def test_the_lab_makes_each_mechanism():
    assert set(MADE.values()) == MECHANISMS


@pytest.mark.parametrize("pcap", PCAPS, ids=lambda p: p.name)
def test_only_where_made(pcap):
    out = command.run(["--format", "json", pcap]).stdout
    for record in (json.loads(line) for line in out.splitlines()):
        if record["record"] != "flow":
            continue
        named = MECHANISMS & set(record["tcpdiag.diag.causes"].split(","))
        want = MADE.get((pcap.name, record["tcp.stream"]))
        assert named == ({want} if want else set()), \
            f"{pcap.name} stream {record['tcp.stream']}: causes {record['tcpdiag.diag.causes']}"
