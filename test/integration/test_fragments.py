"""The command through IP fragments (issue 20, point 2): committed captures cut into
fragments by fragment_capture.py (in order, last piece first, a piece lost, cut by
the snaplen, IPv6, and GRE fragmented as a tunnel) give the command what the plugin
gives under tshark -2, and, where every piece arrived whole, the flows and byte
counts of the capture they were cut from: Wireshark puts the pieces together, and
so must the command."""
import pytest

import command
from fragment_capture import MODES, fragment
from test_command import assert_same_flows
from tshark import CAPTURES, fields

SOURCES = {"ipv6": CAPTURES / "lab-ipv6.pcap"}
DEFAULT_SOURCE = CAPTURES / "lab-ecn-1-of-n.pcap"
WHOLE = ["in-order", "reversed", "ipv6", "gre"]     # every piece arrives and is captured whole


def source_of(mode):
    return SOURCES.get(mode, DEFAULT_SOURCE)


@pytest.fixture(scope="module")
def fragmented(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fragmented")
    out = {}
    for mode in MODES:
        out[mode] = folder / f"{mode}-{source_of(mode).name}"
        fragment(mode, source_of(mode), out[mode])
    return out


def per_stream(pcap, keys):
    return {r["tcp.stream"]: {k: r.get(k) for k in keys} for r in command.flows(pcap)}


@pytest.mark.parametrize("mode", MODES)
def test_fragments_give_what_the_plugin_gives(fragmented, mode):
    assert_same_flows(fragmented[mode])


def test_wireshark_sees_fragments(fragmented):
    """The generator makes what it says: tshark finds datagrams reassembled from
    several frames in each mode where every piece arrives whole, fewer where the
    middle one of three or more is lost, and none where the pieces were cut (else
    the tests above would hold for the wrong reason)."""
    reassembled = {}
    for mode in MODES:
        rows = fields(fragmented[mode], ["ip.fragment.count", "ipv6.fragment.count"])
        reassembled[mode] = sum(1 for r in rows if any(r.values()))
    for mode in WHOLE:
        assert reassembled[mode] > 100, mode
    assert 0 < reassembled["lost-middle"] < reassembled["in-order"]
    assert reassembled["snapped"] == 0


@pytest.mark.parametrize("mode", WHOLE)
def test_whole_pieces_give_the_bare_capture(fragmented, mode):
    """Bytes carried and causes per flow as in the capture the pieces were cut
    from (its frames were only split, never dropped)."""
    keys = ["tcpdiag.diag.cause", "tcpdiag.flow.c2s.bytes", "tcpdiag.flow.s2c.bytes"]
    bare = per_stream(source_of(mode), keys)
    assert sum(flow["tcpdiag.flow.s2c.bytes"] for flow in bare.values()) > 0
    assert per_stream(fragmented[mode], keys) == bare


def test_a_lost_piece_loses_its_segment(fragmented):
    """A datagram with a piece missing never reaches TCP: the server's bytes shrink."""
    key = ["tcpdiag.flow.s2c.bytes"]
    bare = per_stream(DEFAULT_SOURCE, key)
    lost = per_stream(fragmented["lost-middle"], key)
    assert sum(f["tcpdiag.flow.s2c.bytes"] for f in lost.values()) < \
        sum(f["tcpdiag.flow.s2c.bytes"] for f in bare.values())
