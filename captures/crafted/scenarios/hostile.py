"""crafted-hostile.pcap: the robustness corpus (damaged headers, odd frames,
connection-identity abuse, every flag combination, seeded byte flips)."""

import random
import struct

from scapy.layers.inet import ICMP, IP, TCP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

from rfc_tables import ACCECN_SYNACK

from .packets import (FIN, SYN, RST, PSH, ACK, URG, BASE_EPOCH, CLIENT_MAC, SERVER_MAC, aef,
                      Capture, Conn)
from .expected import write_capture


def build_hostile(outdir):
    cap = Capture("crafted-hostile", snaplen=128)
    rng = random.Random(20250301)
    T0 = BASE_EPOCH * 1000000
    tick = [T0]

    def at(dt_ms=1.0):
        tick[0] += int(dt_ms * 1000)
        return tick[0]

    def raw(frame, caplen=None, orig_len=None):
        cap.add(at(), frame, caplen=caplen, orig_len=orig_len)

    C, S = "192.0.2.70", "198.51.100.70"
    C6, S6 = "2001:db8:c1::70", "2001:db8:51::70"
    E = Ether(src=CLIENT_MAC, dst=SERVER_MAC)
    Er = Ether(src=SERVER_MAC, dst=CLIENT_MAC)

    # A. valid seed flows (their packets are also the material for byte flips)
    seeds = []
    for port, (cl, sv, syn3, sa3, mode, cp) in zip(
            (40701, 40702, 40703),
            ((C, S, (1, 1, 1), (0, 1, 1), "accecn", "ect1"),
             (C6, S6, (0, 1, 1), (0, 0, 1), "classic", "ect0"),
             (C, S, (1, 1, 1), (0, 0, 1), "classic", "ect0"))):
        sub = Capture("seed", snaplen=128)
        c = Conn(sub, 0.0, cl, sv, port)
        c.syn(syn3, ecn=cp if port == 40701 else "not-ect")
        c.synack(sa3, ecn=cp if port == 40701 else "not-ect")
        c.mode = mode
        c.third_ack()
        c.exchange(req=((cp, 120),), resp=((cp, 160), ("ce", 160), (cp, 90)), opt=(mode == "accecn"))
        for _, _, data, orig in sub.sorted_records():
            seeds.append((data, orig))
            raw(data, orig_len=orig)
    n_seed = len(seeds)

    def v4(tcp_bytes, tos=0, **ipkw):
        return bytes(E / IP(src=C, dst=S, tos=tos, proto=6, **ipkw) / Raw(tcp_bytes))

    def tcp_hdr(sport, flags, seq=1, ack=0, doff=None, opts=b"", payload=b""):
        hl = 20 + len(opts)
        doff = hl // 4 if doff is None else doff
        h = struct.pack(">HHIIHHHH", sport, 443, seq, ack,
                        (doff << 12) | (flags & 0x1FF), 65535, 0, 0)
        return h + opts + payload

    # B. TCP header damage
    raw(v4(tcp_hdr(40710, SYN | aef(1, 1, 1), doff=0)))
    raw(v4(tcp_hdr(40710, SYN | aef(1, 1, 1), doff=1)))
    raw(v4(tcp_hdr(40710, SYN | aef(0, 1, 1), doff=4)))
    raw(v4(tcp_hdr(40711, SYN | aef(1, 1, 1), doff=15)))                # 60 claimed, 20 present
    raw(v4(tcp_hdr(40711, SYN | ACK | aef(0, 1, 0), doff=15, opts=b"\x02\x04\x05\xb4" * 4)))
    raw(v4(tcp_hdr(40712, SYN | aef(1, 1, 1), opts=b"\x02\x03\x05\xb4")))  # MSS length 3
    raw(v4(tcp_hdr(40712, SYN | aef(1, 1, 1), opts=b"\x02\x00\x00\x00")))  # option length 0
    raw(v4(tcp_hdr(40712, SYN | aef(1, 1, 1), opts=b"\x02\x01\x01\x01")))  # option length 1
    raw(v4(tcp_hdr(40712, ACK | aef(1, 0, 1), opts=b"\xac\x02\x00\x00")))  # AccECN option, empty
    raw(v4(tcp_hdr(40712, ACK | aef(1, 0, 1), opts=b"\xac\x06\x00\x00\x01\x00\x01\x01")))  # AccECN, 4 bytes of field
    raw(v4(tcp_hdr(40712, ACK | aef(1, 0, 1), opts=b"\xae\x28" + b"\x00" * 6)))  # length beyond header
    raw(v4(tcp_hdr(40712, ACK | aef(1, 0, 1), opts=b"\xfe\x06\xac\xc0\x00\x01\x00\x00")))  # old exp-acc0
    raw(v4(tcp_hdr(40713, SYN | FIN | RST | aef(1, 1, 1))))
    raw(v4(tcp_hdr(40713, SYN | FIN | RST | PSH | ACK | URG | aef(1, 1, 1), payload=b"x" * 30)))
    raw(v4(tcp_hdr(40713, SYN | ACK | FIN | RST | aef(1, 1, 1)), tos=3))

    # C. IPv4 header damage
    t = tcp_hdr(40714, SYN | aef(1, 1, 1))
    for tl in (0, 1, 10, 19, 20, 39, 1500, 65535):
        p = bytearray(v4(t, tos=2))
        struct.pack_into(">H", p, 16, tl)
        raw(bytes(p))
    for ihl in (0, 4, 5, 6, 15):
        p = bytearray(v4(t, tos=1))
        p[14] = 0x40 | ihl
        raw(bytes(p))
    p = bytearray(v4(t)); p[14] = 0x65; raw(bytes(p))                     # version 6 in an IPv4 ethertype
    raw(bytes(E / IP(src=C, dst=S, proto=6, frag=1, flags=0) / Raw(t[:8])))  # non-first fragment
    raw(bytes(E / IP(src=C, dst=S, proto=6, flags="MF", id=77) / Raw(t[:8])))  # first fragment, 8 TCP bytes
    raw(bytes(E / IP(src=C, dst=S, proto=6, tos=3, options=b"\x07\x27" + b"\x00" * 2) / Raw(t)))  # bogus IP option

    # D. IPv6 damage
    t6 = tcp_hdr(40715, SYN | aef(1, 1, 1))
    for plen in (0, 8, 19, 65535, 4000):
        p = bytearray(bytes(Ether(src=CLIENT_MAC, dst=SERVER_MAC) /
                            IPv6(src=C6, dst=S6, tc=2, nh=6) / Raw(t6)))
        struct.pack_into(">H", p, 18, plen)
        raw(bytes(p))
    raw(bytes(Ether(src=CLIENT_MAC, dst=SERVER_MAC) / IPv6(src=C6, dst=S6, nh=0) /
              Raw(b"\x06\xff" + b"\x00" * 6 + t6)))  # hop-by-hop claiming 2 KB
    raw(bytes(Ether(src=CLIENT_MAC, dst=SERVER_MAC, type=0x86DD) / Raw(b"\x60\x00")))  # 2 bytes of IPv6

    # E. frames that are (almost) empty
    cap.add(at(), b"", caplen=0, orig_len=0)
    cap.add(at(), b"", caplen=0, orig_len=60)
    cap.add(at(), b"\x02\x00\x00", caplen=3, orig_len=3)
    raw(bytes(E)[:14])                                                    # Ethernet header only
    raw(bytes(E / IP(src=C, dst=S, proto=6)))                             # IPv4 header only

    # F. connection-identity abuse
    def mini(port, isn, t_gap, syn3=(1, 1, 1), sa3=(0, 1, 0), full=True, cl=C, sv=S):
        sub = Capture("x", snaplen=128)
        c = Conn(sub, 0.0, cl, sv, port, c_isn=isn)
        c.syn(syn3)
        if full:
            c.synack(sa3)
            c.mode = "accecn" if sa3 in ACCECN_SYNACK.values() else "none"
            c.third_ack()
            c.exchange(req=(("ect1", 100),), resp=(("ect1", 200),))
        at(t_gap)
        for _, _, data, orig in sub.sorted_records():
            raw(data, orig_len=orig)

    # duplicate SYNs with different ISNs on the same ports, then a SYN-ACK for the last
    for isn, syn3 in ((1000, (1, 1, 1)), (2000, (0, 1, 1)), (3000, (0, 0, 0))):
        mini(40716, isn, 1.0, syn3=syn3, full=False)
    c = Conn(Capture("x"), 0.0, C, S, 40716, c_isn=3000)
    raw(c.frame("s", SYN | ACK | aef(0, 0, 1), c.s_isn, 3001))
    # 4-tuple reused for a new connection after FIN
    mini(40717, 50000, 5.0, syn3=(1, 1, 1), sa3=(0, 1, 0))
    mini(40717, 90000000, 2000.0, syn3=(0, 1, 1), sa3=(0, 0, 1))
    mini(40717, 90000000, 10.0, syn3=(0, 0, 0), sa3=(0, 0, 0))           # and again, same ISN
    # SYN-ACK before SYN (reordered), simultaneous open, SYN with data
    c = Conn(Capture("x"), 0.0, C, S, 40718)
    raw(c.frame("s", SYN | ACK | aef(1, 0, 0), c.s_isn, c.c_isn + 1))
    raw(c.frame("c", SYN | aef(1, 1, 1), c.c_isn, 0, ecn="ect0"))
    raw(c.frame("s", SYN | aef(1, 1, 1), c.s_isn, 0))
    raw(c.frame("c", SYN | aef(1, 1, 1), c.c_isn, 0, data=b"early data" * 10))
    raw(c.frame("c", RST | aef(1, 1, 1), c.c_isn + 1, 0))
    # ICMP errors quoting a SYN and a data segment of a live flow (inner TCP is dissected)
    mini(40719, 7000, 1.0)
    c = Conn(Capture("x"), 0.0, C, S, 40719, c_isn=7000)
    syn_ip = bytes(IP(src=C, dst=S, tos=2) / TCP(sport=40719, dport=443, seq=7000, flags=SYN | aef(0, 0, 0)))
    raw(bytes(Er / IP(src="203.0.113.1", dst=C) / ICMP(type=3, code=13) / Raw(syn_ip[:28])))
    raw(bytes(Er / IP(src="203.0.113.1", dst=C) / ICMP(type=3, code=13) / Raw(syn_ip)))
    raw(bytes(Er / IP(src="203.0.113.1", dst=C) / ICMP(type=11, code=0) / Raw(syn_ip[:24])))
    # IP-in-IP and double VLAN: two ECN fields in one frame
    raw(bytes(E / IP(src="192.0.2.99", dst="198.51.100.99", tos=1) /
              IP(src=C, dst=S, tos=2) / TCP(sport=40720, dport=443, seq=5, flags=SYN | aef(1, 1, 1))))
    raw(bytes(E / IPv6(src=C6, dst=S6, tc=3) /
              IP(src=C, dst=S, tos=1) / TCP(sport=40720, dport=443, seq=5, flags=SYN | ACK | aef(0, 1, 1))))
    raw(bytes(Ether(src=CLIENT_MAC, dst=SERVER_MAC) / Dot1Q(vlan=1) / Dot1Q(vlan=2) /
              IP(src=C, dst=S, tos=3) / TCP(sport=40721, dport=443, seq=9, flags=SYN | aef(1, 1, 1))))

    # G. every 9-bit flag combination on one 4-tuple, alternating directions and codepoints
    for f in range(512):
        d = "c" if f % 2 == 0 else "s"
        c = Conn(Capture("x"), 0.0, C, S, 40722, c_isn=1, s_isn=2)
        raw(c.frame(d, f, 1 + f * 10, 2 + f, data=b"y" * (f % 3), ecn=("not-ect", "ect1", "ect0", "ce")[f % 4]))

    # H. byte flips of the valid seed packets (a few hundred), then random truncations
    for i in range(360):
        data, orig = seeds[i % n_seed]
        p = bytearray(data)
        for _ in range(1 + rng.getrandbits(2)):
            pos = 14 + rng.getrandbits(16) % max(1, len(p) - 14)
            p[pos] ^= 1 << rng.getrandbits(3)
        raw(bytes(p), orig_len=orig)
    for i in range(120):
        p, orig = seeds[(i * 7) % n_seed]
        cut = rng.getrandbits(16) % (len(p) + 1)
        cap.add(at(), p[:cut], caplen=cut, orig_len=orig)

    write_capture(outdir, cap,
                  "Robustness corpus (%d frames): three valid seed flows (AccECN IPv4, "
                  "classic IPv6, accecn-classic IPv4), damaged TCP headers (data offset 0/1/4/15, "
                  "bad option lengths, AccECN options of wrong size), SYN+FIN+RST, damaged IPv4 "
                  "(total length 0..65535, IHL 0/4/15, version 6, fragments), IPv6 with bogus "
                  "payload lengths and hop-by-hop, zero-length and 3-byte frames, duplicate "
                  "SYNs with different ISNs, a 4-tuple reused after FIN, SYN-ACK before SYN, "
                  "simultaneous open, ICMP errors quoting a SYN, IP-in-IP / IPv4-in-IPv6 / "
                  "QinQ (two ECN fields per frame), all 512 TCP flag combinations on one "
                  "4-tuple, 360 seed packets with 1-4 bits flipped and 120 cut at random "
                  "lengths (random.Random(20250301))." % len(cap.records))
