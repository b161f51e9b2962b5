"""The command through the tunnels and encapsulations customer captures hold
(issue 20, point 2): each committed capture re-wrapped by wrap_capture.py (GRE with
plain IP and transparent Ethernet, ERSPAN I, II and III, VXLAN with and without an
inner VLAN tag, Geneve, MPLS, PPPoE, and PPP as the link type) gives the command the flows and fields of the
bare capture, and the plugin's, under tshark -2, on the wrapped one."""
import json
import struct
import subprocess

import pytest

import command
from test_command import assert_same_flows
from tshark import CAPTURES, run
from wrap_capture import ENCAPSULATIONS, read_pcap, wrap

# classic pcap (wrap_capture.py's input), the pcapng one aside
BARE = [p for p in sorted(CAPTURES.glob("*.pcap")) if p.read_bytes()[:4] != b"\x0a\x0d\x0d\x0a"]
# against the plugin: IPv4 flows, IPv6 ones (in GRE: IPv6 inside GRE over IPv4), records cut short
PLUGIN_PARITY = ["lab-ecn-1-of-n.pcap", "lab-ipv6.pcap", "crafted-truncated.pcap"]


@pytest.fixture(scope="module")
def wrapped(tmp_path_factory):
    """encapsulation -> {bare capture -> its wrapped copy}"""
    folder = tmp_path_factory.mktemp("wrapped")
    out = {}
    for encapsulation in ENCAPSULATIONS:
        out[encapsulation] = {}
        for bare in BARE:
            target = folder / f"{encapsulation}-{bare.name}"
            wrap(encapsulation, bare, target)
            out[encapsulation][bare] = target
    return out


def records_without_file(files):
    return [{k: v for k, v in record.items() if k != "file"} for record in command.flows(*files)]


@pytest.mark.parametrize("encapsulation", ENCAPSULATIONS)
def test_wrapped_gives_what_bare_gives(wrapped, encapsulation):
    copies = wrapped[encapsulation]
    bare = records_without_file(BARE)
    assert len(bare) > 400
    assert records_without_file(copies[b] for b in BARE) == bare


@pytest.mark.parametrize("encapsulation", ENCAPSULATIONS)
@pytest.mark.parametrize("name", PLUGIN_PARITY)
def test_wrapped_gives_what_the_plugin_gives(wrapped, encapsulation, name):
    assert_same_flows(wrapped[encapsulation][CAPTURES / name])


def test_wireshark_sees_each_encapsulation(wrapped):
    """The generator makes what it says: tshark dissects the layers named, in that
    order, the TCP segment innermost (else parity would hold for the wrong reason).
    Only the telling layers are named: versions differ in the others they list
    (4.6 names no ip layer under mpls, for one)."""
    expected = {"gre-ip": "ip gre ip tcp",
                "gre-ethernet": "ip gre eth ip tcp",
                "erspan-i": "ip gre erspan eth ip tcp",
                "erspan-ii": "ip gre erspan eth ip tcp",
                "erspan-iii": "ip gre erspan eth ip tcp",
                "vxlan": "ip udp vxlan eth ip tcp",
                "vxlan-vlan": "ip udp vxlan eth vlan ip tcp",
                "geneve": "ip udp geneve eth ip tcp",
                "mpls": "eth mpls tcp",
                "pppoe": "eth pppoes ppp ip tcp",
                "ppp": "ppp ip tcp"}
    assert sorted(expected) == sorted(ENCAPSULATIONS)
    for encapsulation, telling in expected.items():
        layers = run(["-r", wrapped[encapsulation][CAPTURES / "lab-ecn-1-of-n.pcap"], "-c", "1",
                      "-T", "fields", "-e", "frame.protocols"]).stdout.strip().split(":")
        rest = iter(layers)
        assert all(layer in rest for layer in telling.split()), f"{encapsulation}: {layers}"
        assert layers[-1] == "tcp", encapsulation


def test_a_link_type_not_decoded_is_said_once_per_file(tmp_path):
    """A capture whose link type the command does not decode gives no flows, one
    warning saying how many packets were skipped and what reads them, and says so in
    its status record."""
    source = CAPTURES / "lab-midflow.pcap"
    fddi = tmp_path / "fddi.pcap"
    subprocess.run(["editcap", "-T", "fddi", source, fddi], check=True, timeout=300)
    packets = len(read_pcap(source)[3])
    proc = command.run(["--format", "json", fddi, fddi])
    status = {"record": "file", "file": str(fddi), "file.status": "read", "file.frames": packets,
              "file.tcp_segments": 0, "file.icmp_quotes": 0, "file.flows": 0, "file.skipped.not_tcp": 0,
              "file.skipped.undecoded_link": packets, "file.skipped.malformed": 0,
              "file.undecoded_link_type": "FDDI with bit-swapped MAC addresses"}
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [status] * 2
    assert proc.stderr.splitlines() == [
        f"tcpdiag: {fddi}: {packets} packets skipped: the command does not decode link type "
        "FDDI with bit-swapped MAC addresses; tshark -2 with the plugin reads it"] * 2


def test_records_longer_than_the_wire_are_read(tmp_path):
    """A record whose captured length exceeds its original length (a tool that
    counted the FCS in one and not the other) is read with its captured length, as
    Wireshark reads it: here the handshake of the lab's first download, so every
    flow keeps known roles, and the fields match the plugin's."""
    endian, _, head, records = read_pcap(CAPTURES / "lab-ecn-1-of-n.pcap")
    out = [head + struct.pack(endian + "II", 262144, 1)]
    for n, (secs, frac, wire_len, frame) in enumerate(records):
        claimed = len(frame) - 4 if n < 3 else wire_len
        out.append(struct.pack(endian + "IIII", secs, frac, len(frame), claimed) + frame)
    bogus = tmp_path / "caplen-over-wire.pcap"
    bogus.write_bytes(b"".join(out))
    assert {r["tcpdiag.flow.roles"] for r in command.flows(bogus)} == {"known"}
    assert_same_flows(bogus)
