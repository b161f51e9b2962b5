"""Community ID (issue 31, item 3): every flow record carries tcpdiag.flow.community_id,
v1 with seed 0, and it is the value the reference implementation (the `communityid`
package on PyPI) gives the flow's 5-tuple, on every committed capture, IPv4 and IPv6;
the plugin's field is the command's, and Wireshark's own communityid post-dissector
gives the same."""
import json

import communityid
import pytest

import command
from lab_next import NEXT
from tshark import CAPTURES, fields, run

PCAPS = [p for p in sorted(CAPTURES.glob("*.pcap")) + sorted(NEXT.glob("*.pcap"))
         if not json.loads(p.with_name(p.stem + ".expected.json").read_text()).get("robustness_only")]
REFERENCE = communityid.CommunityID(seed=0)


def five_tuples(pcap):
    """tcp.stream -> the reference's Community ID of its first TCP packet's 5-tuple."""
    rows = fields(pcap, ["tcp.stream", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "tcp.srcport", "tcp.dstport"],
                  two_pass=False, extra=["-E", "occurrence=l"])
    ids = {}
    for row in rows:
        stream = row["tcp.stream"]
        if stream == "" or "," in stream or stream in ids:
            continue        # a header cut short; a packet inside a packet (OpenFlow)
        src, dst = row["ip.src"] or row["ipv6.src"], row["ip.dst"] or row["ipv6.dst"]
        flow = communityid.FlowTuple.make_tcp(src, dst, int(row["tcp.srcport"]), int(row["tcp.dstport"]))
        ids[stream] = REFERENCE.calc(flow)
    return ids


@pytest.mark.parametrize("pcap", PCAPS, ids=lambda p: p.name)
def test_community_id_is_the_references(pcap):
    expected = five_tuples(pcap)
    records = {str(r["tcp.stream"]): r for r in command.flows(pcap)}
    assert records, pcap.name
    for stream, record in records.items():
        assert record["tcpdiag.flow.community_id"] == expected[stream], (pcap.name, stream)


def wiresharks_field():
    """Wireshark's Community ID field: the protocol item itself up to 4.4 (communityid),
    a field of its own from 4.6 (communityid.hash)."""
    listed = run(["-G", "fields"]).stdout
    return "communityid.hash" if "\tcommunityid.hash\t" in listed else "communityid"


@pytest.mark.parametrize("pcap", [CAPTURES / "lab-ecn-1-of-n.pcap", CAPTURES / "lab-ipv6.pcap",
                                  CAPTURES / "lab-port-reuse-ipv6.pcap", CAPTURES / "crafted-offload.pcap"],
                         ids=lambda p: p.name)
def test_wiresharks_communityid_agrees(pcap):
    """Wireshark's post-dissector (off by default: --enable-protocol communityid) and the
    plugin's field, on the same packets."""
    out = run(["-2", "-r", pcap, "--enable-protocol", "communityid", "-T", "fields", "-E", "separator=\t",
               "-e", "tcp.stream", "-e", wiresharks_field(), "-e", "tcpdiag.flow.community_id"]).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    checked = [r for r in rows if r[2]]
    assert checked, pcap.name
    for stream, wireshark, tcpdiag in checked:
        assert wireshark == tcpdiag, (pcap.name, stream)
