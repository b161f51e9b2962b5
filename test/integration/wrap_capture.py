#!/usr/bin/python3
"""Re-wraps an Ethernet pcap's packets in a tunnel or another encapsulation, as
customer captures hold them, for the decoder's parity tests (stdlib only).

    test/integration/wrap_capture.py ENCAPSULATION IN.pcap OUT.pcap

Every packet keeps its time and its captured bytes; the encapsulation's headers are
added in front of them (for those that carry IP, in place of the inner Ethernet
header and its VLAN tags), so the captured length grows by those headers and the original length
(the wire's) too. Lengths in the outer headers follow the original length, as on
the wire. Frames that are not IP (ARP) go unwrapped where only IP fits (plain GRE,
MPLS, PPPoE). "ppp" makes PPP the capture's link type (LINKTYPE_PPP) instead of
adding an outer layer; a frame that is not IP then stays as it is, read as PPP."""
import struct
import sys

OUTER_MACS = bytes.fromhex("020000000001" "020000000002")
OUTER_SRC, OUTER_DST = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])
ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_VLAN = 0x0800, 0x86DD, 0x8100
IP_ETHERTYPES = (ETHERTYPE_IPV4, ETHERTYPE_IPV6)
VLAN_ETHERTYPES = (ETHERTYPE_VLAN, 0x88A8, 0x9100)


def checksum(header):
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ipv4(proto, payload_wire_len, ident):
    header = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_wire_len, ident & 0xFFFF, 0x4000, 64,
                                   proto, 0, OUTER_SRC, OUTER_DST))
    header[10:12] = struct.pack("!H", checksum(bytes(header)))
    return bytes(header)


def gre(protocol, sequence=None):
    flags = 0x1000 if sequence is not None else 0
    return struct.pack("!HH", flags, protocol) + (struct.pack("!I", sequence) if sequence is not None else b"")


def erspan_ii(index):
    # version 1, VLAN 0, COS 0, encapsulation 0, truncated 0, session 7; reserved, index
    return struct.pack("!HHI", (1 << 12), 7, index & 0xFFFFF)


def erspan_iii(timestamp):
    # version 2, VLAN 0, session 7; timestamp; SGT 0, flags with O (a platform subheader follows)
    return struct.pack("!HHIHH", (2 << 12), 7, timestamp & 0xFFFFFFFF, 0, 0x0001) + bytes(8)


def udp(dport, sport, payload_wire_len):
    return struct.pack("!HHHH", sport, dport, 8 + payload_wire_len, 0)


def vxlan():
    return struct.pack("!BxxxI", 0x08, 5001 << 8)


def geneve():
    option = struct.pack("!HBB", 0x0103, 0x01, 1) + bytes(4)      # one 4-byte option of class 0x0103
    return struct.pack("!BBHI", len(option) // 4, 0, 0x6558, 5001 << 8) + option


def with_vlan(frame):
    return frame[:12] + struct.pack("!HH", ETHERTYPE_VLAN, 42) + frame[12:]


def wrap_frame(encapsulation, frame, wire_len, n):
    """(wrapped bytes, wrapped original length) of one captured Ethernet frame."""
    ip_at = 12                                  # the ethertype, after any VLAN tags
    while len(frame) >= ip_at + 2 and struct.unpack("!H", frame[ip_at:ip_at + 2])[0] in VLAN_ETHERTYPES:
        ip_at += 4
    ethertype = struct.unpack("!H", frame[ip_at:ip_at + 2])[0] if len(frame) >= ip_at + 2 else 0
    carries_ip = ethertype in IP_ETHERTYPES
    ip_at += 2
    inner_ip, inner_ip_wire = frame[ip_at:], wire_len - ip_at

    def over_ipv4(proto, inner, inner_wire):
        return OUTER_MACS + struct.pack("!H", ETHERTYPE_IPV4) + ipv4(proto, inner_wire, n) + inner

    def gre_over_ipv4(header, inner, inner_wire):
        return over_ipv4(47, header + inner, len(header) + inner_wire), 34 + len(header) + inner_wire

    def udp_over_ipv4(dport, header, inner, inner_wire):
        head = udp(dport, 49152 + n % 16384, len(header) + inner_wire) + header
        return over_ipv4(17, head + inner, len(head) + inner_wire), 34 + len(head) + inner_wire

    if encapsulation == "gre-ip":
        if not carries_ip:
            return frame, wire_len
        return gre_over_ipv4(gre(ethertype), inner_ip, inner_ip_wire)
    if encapsulation == "gre-ethernet":
        return gre_over_ipv4(gre(0x6558), frame, wire_len)
    if encapsulation == "erspan-i":
        return gre_over_ipv4(gre(0x88BE), frame, wire_len)
    if encapsulation == "erspan-ii":
        return gre_over_ipv4(gre(0x88BE, sequence=n) + erspan_ii(n), frame, wire_len)
    if encapsulation == "erspan-iii":
        return gre_over_ipv4(gre(0x22EB, sequence=n) + erspan_iii(n * 1000), frame, wire_len)
    if encapsulation == "vxlan":
        return udp_over_ipv4(4789, vxlan(), frame, wire_len)
    if encapsulation == "vxlan-vlan":
        return udp_over_ipv4(4789, vxlan(), with_vlan(frame), wire_len + 4)
    if encapsulation == "geneve":
        return udp_over_ipv4(6081, geneve(), frame, wire_len)
    if encapsulation == "mpls":
        if not carries_ip:
            return frame, wire_len
        labels = struct.pack("!II", (1000 << 12) | 64, (2000 << 12) | 0x100 | 64)   # the second is the bottom
        return OUTER_MACS + struct.pack("!H", 0x8847) + labels + inner_ip, 14 + len(labels) + inner_ip_wire
    if encapsulation == "ppp":                  # the link layer itself (LINKTYPE_PPP), in HDLC-like framing
        if not carries_ip:
            return frame, wire_len
        ppp = b"\xff\x03" + struct.pack("!H", 0x0021 if ethertype == ETHERTYPE_IPV4 else 0x0057)
        return ppp + inner_ip, len(ppp) + inner_ip_wire
    if encapsulation == "pppoe":
        if not carries_ip:
            return frame, wire_len
        ppp = struct.pack("!H", 0x0021 if ethertype == ETHERTYPE_IPV4 else 0x0057)
        pppoe = struct.pack("!BBHH", 0x11, 0, 0x1234, len(ppp) + inner_ip_wire)
        return OUTER_MACS + struct.pack("!H", 0x8864) + pppoe + ppp + inner_ip, 14 + 8 + inner_ip_wire
    raise ValueError(f"unknown encapsulation {encapsulation}")


ENCAPSULATIONS = ["gre-ip", "gre-ethernet", "erspan-i", "erspan-ii", "erspan-iii", "vxlan", "vxlan-vlan",
                  "geneve", "mpls", "pppoe", "ppp"]
LINKTYPE_ETHERNET, LINKTYPE_PPP = 1, 9


def read_pcap(source):
    """(byte order, link type, [(seconds, fraction, original length, captured bytes)])
    of a classic pcap file."""
    data = open(source, "rb").read()
    endian = {b"\xd4\xc3\xb2\xa1": "<", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",
              b"\xa1\xb2\x3c\x4d": ">"}[data[:4]]
    records, at = [], 24
    while at + 16 <= len(data):
        secs, frac, caplen, wire_len = struct.unpack(endian + "IIII", data[at:at + 16])
        records.append((secs, frac, wire_len, data[at + 16:at + 16 + caplen]))
        at += 16 + caplen
    return endian, struct.unpack(endian + "I", data[20:24])[0], data[:16], records


def rewrite(source, target, linktype, frames_of):
    """Writes target: each record of source (a classic pcap of Ethernet frames) as
    the frames frames_of(frame, original length, record number from 1) gives, each
    (bytes, original length), at the record's time; the file's link type linktype."""
    endian, source_linktype, head, records = read_pcap(source)
    assert source_linktype == LINKTYPE_ETHERNET, f"{source}: Ethernet captures only"
    out = [head + struct.pack(endian + "II", 262144, linktype)]     # a snaplen added headers fit in
    for n, (secs, frac, wire_len, frame) in enumerate(records, 1):
        for data, length in frames_of(frame, wire_len, n):
            out.append(struct.pack(endian + "IIII", secs, frac, len(data), length) + data)
    open(target, "wb").write(b"".join(out))


def wrap(encapsulation, source, target):
    """Writes target: source (a classic pcap of Ethernet frames) re-wrapped."""
    rewrite(source, target, LINKTYPE_PPP if encapsulation == "ppp" else LINKTYPE_ETHERNET,
            lambda frame, wire_len, n: [wrap_frame(encapsulation, frame, wire_len, n)])


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ENCAPSULATIONS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(ENCAPSULATIONS)} IN.pcap OUT.pcap")
    wrap(*sys.argv[1:])
