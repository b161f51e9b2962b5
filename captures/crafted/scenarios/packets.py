"""Packets and pcap files: the flag and codepoint constants, a classic-pcap
writer whose records keep caplen < orig_len exact, and Conn, one TCP connection
built packet by packet with consistent sequence numbers, timestamps, IP IDs and
ECN feedback (classic ECE/CWR, AccECN ACE).

ECN codepoints, the RFC 9768 Table 2 SYN-ACK rows and the docs/fields.md
classes come from rfc_tables.py, shared with check-crafted.py."""

import struct

from scapy.layers.inet import IP, TCP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw
from scapy.utils import checksum

from rfc_tables import CODEPOINTS, ECN


FIN, SYN, RST, PSH, ACK, URG, ECE, CWR, AE = (
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x100)


def aef(a, c, e):
    """TCP flag bits for an (AE, CWR, ECE) triple."""
    return (AE if a else 0) | (CWR if c else 0) | (ECE if e else 0)


def ace_bits(n):
    """ACE field value n (0..7): AE is the MSB, ECE the LSB (RFC 9768 §3.2.2)."""
    n &= 7
    return aef(n >> 2 & 1, n >> 1 & 1, n & 1)


# Handshake encoding of the ACE field on the client's pure ACK of the SYN-ACK
# (RFC 9768 §3.2.2.1 Table 3), keyed by the IP-ECN codepoint of the SYN-ACK.
HANDSHAKE_ACE = {"not-ect": 0b010, "ect1": 0b011, "ect0": 0b100, "ce": 0b110}

CLIENT_MAC = "02:00:00:00:0c:01"
SERVER_MAC = "02:00:00:00:05:01"

BASE_EPOCH = 1740787200  # 2025-03-01 00:00:00 UTC


class Capture:
    def __init__(self, name, snaplen=128, linktype=1):
        self.name = name
        self.snaplen = snaplen
        self.linktype = linktype
        self.records = []  # (time_us, seqno, data, orig_len)

    def add(self, t_us, frame, caplen=None, orig_len=None):
        if caplen is None:
            caplen = min(len(frame), self.snaplen)
        if orig_len is None:
            orig_len = len(frame)
        assert caplen <= self.snaplen
        self.records.append((t_us, len(self.records), frame[:caplen], orig_len))

    def sorted_records(self):
        return sorted(self.records, key=lambda r: (r[0], r[1]))

    def frame_number(self, index):
        """Frame number (from 1) that the index-th record added gets in the file."""
        return [r[1] for r in self.sorted_records()].index(index) + 1

    def write(self, path):
        out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0,
                           self.snaplen, self.linktype)]
        for t_us, _, data, orig in self.sorted_records():
            out.append(struct.pack("<IIII", t_us // 1000000, t_us % 1000000,
                                   len(data), orig))
            out.append(data)
        with open(path, "wb") as f:
            f.write(b"".join(out))


def ip_len_zeroed(frame, at):
    """The frame with IPv4 total length 0 at offset `at`, header checksum redone
    (the TCP checksum still covers the real length)."""
    hdr = bytearray(frame[at:at + (frame[at] & 0x0F) * 4])
    hdr[2:4] = hdr[10:12] = b"\0\0"
    hdr[10:12] = struct.pack(">H", checksum(bytes(hdr)))
    return frame[:at] + bytes(hdr) + frame[at + len(hdr):]


def payload_bytes(n, tag):
    """Deterministic, vaguely realistic payload of n bytes."""
    if tag == "c":
        head = b"GET /object/1 HTTP/1.1\r\nHost: example.test\r\nUser-Agent: crafted\r\n"
    else:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"
    body = bytes((i * 31 + 7) & 0xFF for i in range(max(0, n - len(head))))
    return (head + body)[:n]


class Conn:
    """A TCP connection between a client and a server.

    Tracks sequence numbers, timestamps, IP IDs and the ECN state needed to
    make the ACK-side flags (classic ECE/CWR, AccECN ACE) consistent, and
    tallies what was written so the expected file can state it.
    """

    def __init__(self, cap, t0_ms, client, server, cport, sport=443,
                 c_isn=None, s_isn=None, c_mss=1460, s_mss=1460,
                 c_dscp=0, s_dscp=0, vlan=None):
        self.cap = cap
        self.t = int(round(t0_ms * 1000)) + BASE_EPOCH * 1000000
        self.client, self.server = client, server
        self.cport, self.sport = cport, sport
        self.v6 = ":" in client
        self.c_isn = c_isn if c_isn is not None else (cport * 104729) & 0xFFFFFFFF
        self.s_isn = s_isn if s_isn is not None else (cport * 7919 + 0x5E000000) & 0xFFFFFFFF
        self.nxt = {"c": self.c_isn, "s": self.s_isn}
        self.c_mss, self.s_mss = c_mss, s_mss
        self.dscp = {"c": c_dscp, "s": s_dscp}
        self.vlan = vlan
        self.ipid = {"c": (cport * 13) & 0xFFFF, "s": (cport * 17 + 999) & 0xFFFF}
        self.ts = {"c": 100000 + cport, "s": 900000 + cport}
        self.ts_seen = {"c": 0, "s": 0}  # latest TSval received by each side
        self.t0_us = self.t
        # ECN state
        self.mode = "none"  # none | classic | accecn
        self.rcep = {"c": 5, "s": 5}
        self.rbytes = {"c": {"ect0": 1, "ect1": 1, "ce": 0},
                       "s": {"ect0": 1, "ect1": 1, "ce": 0}}
        self.demand_cwr = {"c": False, "s": False}  # classic receiver sends ECE
        self.queue_cwr = {"c": False, "s": False}   # classic sender owes CWR
        # what was written (for the expected file)
        self.tally = {"c": dict.fromkeys(CODEPOINTS, 0), "s": dict.fromkeys(CODEPOINTS, 0)}
        self.packets = 0
        self.syn_ecn = None
        self.synack_ecn = None
        self.syn_mss_seen = None
        self.synack_mss_seen = None
        self.bytes = {"c": 0, "s": 0}

    # -- low level -------------------------------------------------------
    def frame(self, d, flags, seq, ack, data=b"", ecn="not-ect", opts=None,
              window=None, ttl=None, ip_len0=False):
        src, dst = (self.client, self.server) if d == "c" else (self.server, self.client)
        sp, dp = (self.cport, self.sport) if d == "c" else (self.sport, self.cport)
        smac, dmac = (CLIENT_MAC, SERVER_MAC) if d == "c" else (SERVER_MAC, CLIENT_MAC)
        tos = (self.dscp[d] << 2) | ECN[ecn]
        if ttl is None:
            ttl = 64 if d == "c" else 52
        if self.v6:
            fl = (self.cport * 2654435761 + (0 if d == "c" else 1)) & 0xFFFFF
            ip = IPv6(src=src, dst=dst, tc=tos, fl=fl, hlim=ttl)
        else:
            ip = IP(src=src, dst=dst, tos=tos, id=self.ipid[d], flags="DF", ttl=ttl)
            self.ipid[d] = (self.ipid[d] + 1) & 0xFFFF
        if window is None:
            window = 502 if d == "c" else 509
        tcp = TCP(sport=sp, dport=dp, seq=seq & 0xFFFFFFFF, ack=ack & 0xFFFFFFFF,
                  flags=flags, window=window, options=opts or [])
        l2 = Ether(src=smac, dst=dmac)
        if self.vlan is not None:
            for tag in (self.vlan if isinstance(self.vlan, tuple) else (self.vlan,)):
                l2 = l2 / Dot1Q(vlan=tag)
        pkt = l2 / ip / tcp
        if data:
            pkt = pkt / Raw(data)
        return ip_len_zeroed(bytes(pkt), len(l2)) if ip_len0 else bytes(pkt)

    def tsopt(self, d):
        other = "s" if d == "c" else "c"
        self.ts[d] += 1
        return ("Timestamp", (self.ts[d], self.ts_seen[d])), other

    def emit(self, d, flags, n=0, ecn="not-ect", dt=0.2, seq=None, ack=None,
             opts=None, extra_opts=(), caplen=None, advance=True, count=True,
             window=None, syn_opts=False, mss=None, ttl=None, ip_len0=False, payload=None):
        """Write one segment from direction d ('c' or 's'); its payload is n bytes of
        payload_bytes, or `payload` itself when given."""
        if payload is not None:
            n = len(payload)
        self.t += int(round(dt * 1000))
        other = "s" if d == "c" else "c"
        if seq is None:
            seq = self.nxt[d]
        if ack is None:
            ack = self.nxt[other] if flags & ACK else 0
        if opts is None:
            (tsname, tsval), _ = self.tsopt(d)
            if syn_opts:
                opts = []
                if mss is not None:
                    opts.append(("MSS", mss))
                opts += [("SAckOK", b""), (tsname, tsval), ("NOP", None), ("WScale", 7)]
            else:
                opts = [("NOP", None), ("NOP", None), (tsname, tsval)]
            opts = list(opts) + list(extra_opts)
            self.ts_seen[other] = self.ts[d]
        if window is None and flags & SYN:
            window = 64240 if d == "c" else 65160
        data = payload_bytes(n, d) if payload is None else payload
        frame = self.frame(d, flags, seq, ack, data, ecn, opts, window, ttl, ip_len0)
        self.cap.add(self.t, frame, caplen=caplen)
        if count:
            self.packets += 1
            if n > 0:
                self.tally[d][ecn.replace("-", "_")] += 1
                self.bytes[d] += n
        if advance:
            end = seq + n + (1 if flags & (SYN | FIN) else 0)
            if ((end - self.nxt[d]) & 0xFFFFFFFF) < 0x80000000:
                self.nxt[d] = end & 0xFFFFFFFF
        # receiver-side ECN bookkeeping (capture point = receiver's view)
        if self.mode == "accecn" and not (flags & SYN):
            if ecn == "ce":
                self.rcep[other] += 1
            if n and ecn != "not-ect":
                self.rbytes[other][ecn] += n
        if self.mode == "classic":
            if ecn == "ce" and n:
                self.demand_cwr[other] = True
            if flags & CWR:
                self.demand_cwr[other] = False
            if flags & ECE and not flags & SYN:
                self.queue_cwr[other] = True
        return frame

    # -- handshake helpers ----------------------------------------------
    def syn(self, flags3=(0, 0, 0), ecn="not-ect", dt=0.0, caplen=None, mss="default", ttl=None,
            window=None):
        mss = self.c_mss if mss == "default" else mss
        self.syn_ecn = ecn
        self.syn_mss_seen = mss
        return self.emit("c", SYN | aef(*flags3), ecn=ecn, dt=dt, seq=self.c_isn,
                         syn_opts=True, mss=mss, caplen=caplen, ttl=ttl, window=window)

    def synack(self, flags3=(0, 0, 0), ecn="not-ect", dt=20.0, caplen=None, mss="default"):
        mss = self.s_mss if mss == "default" else mss
        self.synack_ecn = ecn
        self.synack_mss_seen = mss
        return self.emit("s", SYN | ACK | aef(*flags3), ecn=ecn, dt=dt, seq=self.s_isn,
                         ack=(self.c_isn + 1), syn_opts=True, mss=mss, caplen=caplen)

    def handshake(self, syn3, synack3, mode="none", syn_ecn="not-ect"):
        """SYN and SYN-ACK with these (AE,CWR,ECE), then the client's ACK in `mode`
        (none, classic or accecn), the ECN feedback mode from the SYN-ACK on."""
        self.syn(syn3, ecn=syn_ecn)
        self.synack(synack3)
        self.mode = mode
        self.third_ack()

    def third_ack(self, dt=0.15):
        """Client's pure ACK of the SYN-ACK."""
        flags = ACK
        if self.mode == "accecn":
            flags |= ace_bits(HANDSHAKE_ACE[self.synack_ecn])
            if self.synack_ecn == "ce":
                self.rcep["c"] = 6  # RFC 9768 Table 3
        return self.emit("c", flags, dt=dt)

    # -- data helpers ----------------------------------------------------
    def ecn_flags(self, d, n):
        """Flags carried by a non-SYN segment from d in the current mode."""
        if self.mode == "accecn":
            return ace_bits(self.rcep[d])
        if self.mode == "classic":
            f = 0
            if self.demand_cwr[d]:
                f |= ECE
            if n and self.queue_cwr[d]:
                f |= CWR
                self.queue_cwr[d] = False
            return f
        return 0

    def accecn_opt(self, d):
        """AccECN option, order 0 (kind 172): EE0B, ECEB, EE1B (RFC 9768 §3.2.3)."""
        r = self.rbytes[d]
        body = b"".join(struct.pack(">I", v & 0xFFFFFF)[1:] for v in (r["ect0"], r["ce"], r["ect1"]))
        return [(172, body), ("NOP", None)]

    def data(self, d, n, ecn, dt, flags=PSH | ACK, accecn_opt=False, **kw):
        extra = self.accecn_opt(d) if accecn_opt else ()
        return self.emit(d, flags | self.ecn_flags(d, n), n=n, ecn=ecn, dt=dt,
                         extra_opts=extra, **kw)

    def pure_ack(self, d, dt, accecn_opt=False, **kw):
        extra = self.accecn_opt(d) if accecn_opt else ()
        return self.emit(d, ACK | self.ecn_flags(d, 0), dt=dt, extra_opts=extra, **kw)

    def close(self, dt=5.0, c_window=None):
        """Server closes first; client answers with its own FIN (window field c_window)."""
        self.emit("s", FIN | ACK | self.ecn_flags("s", 0), dt=dt)
        self.emit("c", FIN | ACK | self.ecn_flags("c", 0), dt=0.3, window=c_window)
        self.emit("s", ACK | self.ecn_flags("s", 0), dt=20.0)

    def exchange(self, req=(("not-ect", 180),), resp=(), opt=False, rtt=20.0, close=True):
        """Client request(s), server response segments, client ACKs every 2nd; then
        the FINs unless close is False."""
        for i, (ecn, n) in enumerate(req):
            self.data("c", n, ecn, dt=0.1 if i == 0 else 0.05, accecn_opt=False)
        for i, (ecn, n) in enumerate(resp):
            self.data("s", n, ecn, dt=rtt if i == 0 else 0.12)
            if i % 2 == 1 or i == len(resp) - 1:
                self.pure_ack("c", dt=0.05, accecn_opt=opt)
        if close:
            self.close()
