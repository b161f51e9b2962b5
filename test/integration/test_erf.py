"""The command on Endace ERF captures (issue 20, point 2): each committed Ethernet
capture written as ERF records of type ETH (a 16-byte record header, the 2-byte
offset and pad, the frame; the layout of Endace's ERF specification) gives the
command the flows and fields of the bare capture, and the plugin's under tshark -2."""
import json
import struct

import pytest

import command
from test_command import assert_same_flows
from tshark import CAPTURES
from wrap_capture import LINKTYPE_ETHERNET, read_pcap

ERF_TYPE_ETH = 2
ERF_HEADER = 16
ETH_PAD = 2
BARE = [p for p in sorted(CAPTURES.glob("*.pcap")) if p.read_bytes()[:4] != b"\x0a\x0d\x0d\x0a"]


def write_erf(source, target):
    """ERF has no file header: records one after another. Timestamps are 32.32 fixed
    point, little-endian; the lengths big-endian. Records are left unpadded: a DAG
    card pads each to 8 bytes, and wiretap reads the padding of a record cut by the
    snaplen as captured bytes, which would put zeros where the cut header was."""
    endian, linktype, _head, records = read_pcap(source)
    assert linktype == LINKTYPE_ETHERNET, f"{source}: Ethernet captures only"
    nanos = _head[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    out = []
    for secs, frac, wire_len, frame in records:
        fraction = (frac << 32) // (1000000000 if nanos else 1000000)
        body = b"\x00\x00" + frame
        out.append(struct.pack("<Q", (secs << 32) | fraction) +
                   struct.pack(">BBHHH", ERF_TYPE_ETH, 0x04, ERF_HEADER + len(body), 0, wire_len) + body)
    open(target, "wb").write(b"".join(out))


def records_without_file(path):
    return [{k: v for k, v in json.loads(line).items() if k not in ("file", "record")}
            for line in command.run(["--format", "json", path]).stdout.splitlines()
            if json.loads(line).get("record", "flow") == "flow"]


@pytest.mark.parametrize("bare", BARE, ids=lambda p: p.name)
def test_erf_reads_as_the_bare_capture(bare, tmp_path):
    erf = tmp_path / (bare.stem + ".erf")
    write_erf(bare, erf)
    assert records_without_file(erf) == records_without_file(bare)


@pytest.mark.parametrize("name", ["lab-ecn-1-of-n.pcap", "lab-ipv6.pcap"])
def test_erf_matches_the_plugin(name, tmp_path):
    erf = tmp_path / (name[:-5] + ".erf")
    write_erf(CAPTURES / name, erf)
    assert_same_flows(erf)
