#!/usr/bin/python3
"""Splits an Ethernet pcap's TCP datagrams into IP fragments, as a router on a
smaller MTU does (IPv4, RFC 791) or as a sender does for IPv6 (RFC 8200), for the
decoder's reassembly tests (stdlib only).

    test/integration/fragment_capture.py MODE IN.pcap OUT.pcap

The committed captures are cut at 128 bytes, so each datagram that carries TCP is
first made whole: the bytes its IP length names and the capture lacks are zeros
(tcpdiag reads headers and lengths, not payload). Its IP payload is then cut into
pieces of FRAGMENT_PAYLOAD bytes (a multiple of 8); datagrams no longer than one
piece stay whole. Each piece keeps the frame's time. Modes:

- in-order: the pieces in order;
- reversed: the last piece first, so the first piece (the TCP header) completes
  the datagram;
- lost-middle: the second of three or more pieces never arrives (the datagram
  never completes);
- snapped: every piece cut to 96 captured bytes (a capture's snaplen).
- ipv6: IPv6 datagrams only, each piece with a Fragment header (RFC 8200 §4.5).
- gre: each TCP datagram first wrapped in GRE over IPv4, then the outer datagram
  fragmented (tunnel overhead past the path MTU)."""
import struct
import sys

from wrap_capture import ETHERTYPE_IPV4, ETHERTYPE_IPV6, LINKTYPE_ETHERNET, VLAN_ETHERTYPES, checksum, ipv4, rewrite

FRAGMENT_PAYLOAD = 256
SNAPLEN = 96
MODES = ["in-order", "reversed", "lost-middle", "snapped", "ipv6", "gre"]
IPPROTO_TCP, IPPROTO_GRE, IPPROTO_FRAGMENT = 6, 47, 44


def whole_datagram(frame, ip_at, wire_len):
    """The datagram at ip_at with the bytes its IP length names (zeros where the
    capture stops), or None when it is not one whole TCP datagram to split."""
    version = frame[ip_at] >> 4
    if version == 4:
        total = struct.unpack("!H", frame[ip_at + 2:ip_at + 4])[0]
        flags = struct.unpack("!H", frame[ip_at + 6:ip_at + 8])[0]
        if frame[ip_at + 9] != IPPROTO_TCP or flags & 0x3FFF or total < 20:
            return None
    elif version == 6:
        total = 40 + struct.unpack("!H", frame[ip_at + 4:ip_at + 6])[0]
        if frame[ip_at + 6] != IPPROTO_TCP or total == 40:
            return None
    else:
        return None
    if total > wire_len - ip_at:        # an IP length past the frame: leave it as it is
        return None
    datagram = frame[ip_at:ip_at + total]
    return datagram + bytes(total - len(datagram))


def ipv4_pieces(datagram):
    """An IPv4 datagram (20-byte header or longer) as fragments."""
    ihl = (datagram[0] & 15) * 4
    header, payload = bytearray(datagram[:ihl]), datagram[ihl:]
    pieces = []
    for at in range(0, len(payload), FRAGMENT_PAYLOAD):
        chunk = payload[at:at + FRAGMENT_PAYLOAD]
        more = at + FRAGMENT_PAYLOAD < len(payload)
        h = bytearray(header)
        h[2:4] = struct.pack("!H", ihl + len(chunk))
        h[6:8] = struct.pack("!H", (0x2000 if more else 0) | at // 8)     # DF cleared: it was fragmented
        h[10:12] = b"\0\0"
        h[10:12] = struct.pack("!H", checksum(bytes(h)))
        pieces.append(bytes(h) + chunk)
    return pieces


def ipv6_pieces(datagram, ident):
    """An IPv6 datagram without extension headers as fragments, each with a
    Fragment header (next header TCP)."""
    header, payload = bytearray(datagram[:40]), datagram[40:]
    next_header = header[6]
    pieces = []
    for at in range(0, len(payload), FRAGMENT_PAYLOAD):
        chunk = payload[at:at + FRAGMENT_PAYLOAD]
        more = at + FRAGMENT_PAYLOAD < len(payload)
        h = bytearray(header)
        h[4:6] = struct.pack("!H", 8 + len(chunk))
        h[6] = IPPROTO_FRAGMENT
        fragment = struct.pack("!BBHI", next_header, 0, at | (1 if more else 0), ident)
        pieces.append(bytes(h) + fragment + chunk)
    return pieces


def gre_datagram(datagram, ethertype, ident):
    """datagram in GRE over IPv4, DF cleared so that it may be fragmented."""
    inner = struct.pack("!HH", 0, ethertype) + datagram
    header = bytearray(ipv4(IPPROTO_GRE, len(inner), ident))
    header[6:8] = b"\0\0"
    header[10:12] = b"\0\0"
    header[10:12] = struct.pack("!H", checksum(bytes(header)))
    return bytes(header) + inner


def split(mode, frame, wire_len, n):
    """The frames (bytes, original length) that stand for one captured frame."""
    ip_at = 12
    while len(frame) >= ip_at + 2 and struct.unpack("!H", frame[ip_at:ip_at + 2])[0] in VLAN_ETHERTYPES:
        ip_at += 4
    ethertype = struct.unpack("!H", frame[ip_at:ip_at + 2])[0] if len(frame) >= ip_at + 2 else 0
    ip_at += 2
    if ethertype not in (ETHERTYPE_IPV4, ETHERTYPE_IPV6) or len(frame) < ip_at + 40:
        return [(frame, wire_len)]
    datagram = whole_datagram(frame, ip_at, wire_len)
    if datagram is None or (mode == "ipv6") != (ethertype == ETHERTYPE_IPV6):
        return [(frame, wire_len)]
    link = frame[:ip_at - 2] + struct.pack("!H", ETHERTYPE_IPV4 if mode == "gre" else ethertype)
    if mode == "gre":
        datagram = gre_datagram(datagram, ethertype, n)
    if len(datagram) - (40 if mode == "ipv6" else 20) <= FRAGMENT_PAYLOAD:
        whole = link + datagram
        return [(whole, len(whole))]
    pieces = ipv6_pieces(datagram, n) if mode == "ipv6" else ipv4_pieces(datagram)
    if mode == "reversed":
        pieces.reverse()
    if mode == "lost-middle" and len(pieces) >= 3:
        del pieces[1]
    frames = [link + p for p in pieces]
    if mode == "snapped":
        return [(f[:SNAPLEN], len(f)) for f in frames]
    return [(f, len(f)) for f in frames]


def fragment(mode, source, target):
    """Writes target: source (a classic pcap of Ethernet frames) with its TCP
    datagrams in fragments."""
    rewrite(source, target, LINKTYPE_ETHERNET, lambda frame, wire_len, n: split(mode, frame, wire_len, n))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in MODES:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(MODES)} IN.pcap OUT.pcap")
    fragment(*sys.argv[1:])
