"""The IP layer read once (issue 36, item 4): crafted IPv6 extension chains and IPv4
options give the same flows in tshark -2 with the plugin and in the command, and
the flows tshark's TCP dissector numbers. Each flow (handshake, a request, a
1,000-byte answer, the close) carries one chain on every packet, both ways:
a Mobility header whose Payload Proto names TCP (tshark reads no TCP after it, so
neither front end has that flow), hop-by-hop + routing + destination options, AH,
Shim6, 9 and 17 destination options headers (past the 8 and 16 the front ends
once allowed), a 968-byte hop-by-hop header (past the plugin's old 616-byte
window), IPv4 with 40 bytes of options, and two flows whose packets carry a
Fragment header, the 1,000-byte answer cut in two pieces: one with a hop-by-hop
header before the Fragment header, one whose fragmentable part opens with a
destination options header (read after reassembly). The other packets of those
flows are atomic fragments (offset 0, no more: whole). (stdlib only)"""
import struct

import pytest

import command
from test_command import assert_same_flows
from tshark import fields

CLIENT6 = bytes.fromhex("20010db8000000000000000000000001")
SERVER6 = bytes.fromhex("20010db8000000000000000000000002")
CLIENT4, SERVER4 = bytes([192, 0, 2, 1]), bytes([198, 51, 100, 2])
TCP, HOP_BY_HOP, ROUTING, FRAGMENT, AH, DESTINATION, MOBILITY, SHIM6 = 6, 0, 43, 44, 51, 60, 135, 140
PIECE = 512         # bytes of fragmentable part per piece (a multiple of 8)


def options_header(next_header, units=0):
    """RFC 8200 4.3/4.6 (and Shim6's layout): next header, length in 8-byte units
    past the first 8, filled with PadN options of at most 255 bytes each."""
    size = (units + 1) * 8
    body = bytearray([next_header, units])
    while len(body) < size:
        pad = min(size - len(body) - 2, 255)
        body += bytes([1, pad]) + bytes(pad)
    return bytes(body)


def routing_header(next_header):
    """RFC 8200 4.4: an experimental routing type (253) with no segment left, so
    the destination stays the packet's own."""
    return struct.pack("!BBBB", next_header, 0, 253, 0) + bytes(4)


def ah_header(next_header):
    """RFC 4302 2: next header, payload length in 4-byte words minus 2, reserved,
    SPI, sequence number, 12 bytes of ICV: 24 bytes."""
    return struct.pack("!BBHII", next_header, 4, 0, 0x100, 1) + bytes(12)


def mobility_header(payload_proto):
    """RFC 6275 6.1.1: payload proto, length, MH type (Binding Refresh Request),
    reserved, checksum, 2 reserved bytes."""
    return struct.pack("!BBBBHH", payload_proto, 0, 0, 0, 0, 0)


# name -> [(header type, header builder given its next header)], outermost first
CHAINS = {
    "mobility": [(MOBILITY, mobility_header)],
    "hop-routing-destination": [(HOP_BY_HOP, options_header), (ROUTING, routing_header),
                                (DESTINATION, options_header)],
    "ah": [(AH, ah_header)],
    "shim6": [(SHIM6, options_header)],
    "9-destination": [(DESTINATION, options_header)] * 9,
    "17-destination": [(DESTINATION, options_header)] * 17,
    "968-byte-hop-by-hop": [(HOP_BY_HOP, lambda nh: options_header(nh, 120))],
}
IPV4_OPTIONS = "ipv4-options"
# name -> (headers before the Fragment header, headers its fragmentable part opens with)
FRAGMENTED = {
    "hop-by-hop-fragment": ([(HOP_BY_HOP, options_header)], []),
    "fragment-destination": ([], [(DESTINATION, options_header)]),
}
# the flows tshark's TCP dissector numbers: all but the one behind a Mobility header
READ = [name for name in CHAINS if name != "mobility"] + [IPV4_OPTIONS] + list(FRAGMENTED)


def tcp_segment(sport, dport, seq, ack, flags, payload=b""):
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload


def chained(chain, body, next_header):
    """body behind the chain's headers: (bytes, the first header's type)."""
    for header_type, build in reversed(chain):
        body, next_header = build(next_header) + body, header_type
    return body, next_header


def ipv6_packet(chain, segment, src, dst):
    body, next_header = chained(chain, segment, TCP)
    return struct.pack("!IHBB", 0x60000000, len(body), next_header, 64) + src + dst + body


def ipv6_pieces(name, segment, src, dst, ident):
    """RFC 8200 4.5: the unfragmentable headers, a Fragment header, and PIECE bytes
    of the fragmentable part (its own headers, then the segment) in each packet."""
    before, inside = FRAGMENTED[name]
    fragmentable, next_header = chained(inside, segment, TCP)
    packets = []
    for at in range(0, len(fragmentable), PIECE):
        more = at + PIECE < len(fragmentable)
        piece = struct.pack("!BBHI", next_header, 0, at | (1 if more else 0), ident) + fragmentable[at:at + PIECE]
        body, first = chained(before, piece, FRAGMENT)
        packets.append(struct.pack("!IHBB", 0x60000000, len(body), first, 64) + src + dst + body)
    return packets


def ipv4_packet(segment, src, dst):
    """RFC 791: IHL 15, 40 bytes of options (NOPs, then End of Option List)."""
    options = bytes([1] * 39 + [0])
    header = bytearray(struct.pack("!BBHHHBBH4s4s", 0x4F, 0, 60 + len(segment), 1, 0x4000, 64, TCP, 0, src, dst))
    header += options
    words = struct.unpack(f"!{len(header) // 2}H", header)
    total = sum(words)
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    header[10:12] = struct.pack("!H", ~total & 0xFFFF)
    return bytes(header) + segment


def flow_frames(name, port):
    """A flow's Ethernet frames, the chain (or IPv4 options) on every packet."""
    segments = [(True, tcp_segment(port, 80, 1000, 0, 0x02)),
                (False, tcp_segment(80, port, 5000, 1001, 0x12)),
                (True, tcp_segment(port, 80, 1001, 5001, 0x18, b"GET / HTTP/1.0\r\n\r\n")),
                (False, tcp_segment(80, port, 5001, 1019, 0x18, bytes(1000))),
                (True, tcp_segment(port, 80, 1019, 6001, 0x11)),
                (False, tcp_segment(80, port, 6001, 1020, 0x11)),
                (True, tcp_segment(port, 80, 1020, 6002, 0x10))]
    frames = []
    for n, (from_client, segment) in enumerate(segments):
        if name == IPV4_OPTIONS:
            src, dst = (CLIENT4, SERVER4) if from_client else (SERVER4, CLIENT4)
            packets, ethertype = [ipv4_packet(segment, src, dst)], 0x0800
        else:
            src, dst = (CLIENT6, SERVER6) if from_client else (SERVER6, CLIENT6)
            packets = ipv6_pieces(name, segment, src, dst, port * 100 + n) if name in FRAGMENTED \
                else [ipv6_packet(CHAINS[name], segment, src, dst)]
            ethertype = 0x86DD
        frames += [bytes.fromhex("020000000001020000000002") + struct.pack("!H", ethertype) + p for p in packets]
    return frames


@pytest.fixture(scope="module")
def chains(tmp_path_factory):
    """One capture of every flow, one after the other, and the client port of each."""
    ports = {name: 41000 + n for n, name in enumerate(list(CHAINS) + [IPV4_OPTIONS] + list(FRAGMENTED))}
    records = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)]
    at = 0
    for name, port in ports.items():
        for frame in flow_frames(name, port):
            at += 1
            records.append(struct.pack("<IIII", 1_700_000_000 + at // 10, (at % 10) * 100_000, len(frame),
                                       len(frame)) + frame)
    pcap = tmp_path_factory.mktemp("chains") / "ip-chains.pcap"
    pcap.write_bytes(b"".join(records))
    return pcap, ports


def test_wireshark_reads_what_the_chains_say(chains):
    """The generator makes what it says: tshark numbers a stream for every flow but
    the one behind a Mobility header, whose frames show mipv6 and no tcp, and puts
    the two fragmented answers together."""
    pcap, ports = chains
    rows = fields(pcap, ["tcp.stream", "tcp.srcport", "tcp.dstport", "frame.protocols", "ipv6.fragment.count"])
    numbered = {max(int(r["tcp.srcport"]), int(r["tcp.dstport"])) for r in rows if r["tcp.stream"]}
    assert numbered == {ports[name] for name in READ}
    mobility_frames = rows[:7]
    assert all("mipv6" in r["frame.protocols"] and not r["tcp.stream"] for r in mobility_frames)
    assert [int(r["ipv6.fragment.count"]) >= 2 for r in rows if r["ipv6.fragment.count"]] == [True, True]


def test_the_command_reads_the_flows_tshark_reads(chains):
    pcap, ports = chains
    flows = command.flows(pcap)
    assert sorted(f["tcpdiag.flow.client_port"] for f in flows) == sorted(ports[name] for name in READ)
    assert all(f["tcpdiag.flow.s2c.bytes"] == 1000 for f in flows)


def test_the_plugin_and_the_command_give_the_same_flows(chains):
    assert_same_flows(chains[0])
