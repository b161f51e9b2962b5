#!/usr/bin/python3
"""Build the crafted-*.pcap test captures and their *.expected.json files.

Usage:  /usr/bin/python3 captures/crafted/make-crafted.py [OUTDIR]
        (OUTDIR defaults to captures/, the parent of this script's directory)

The captures hold behaviour that no local Linux kernel produces (AccECN
handshake rows, reflectors, reserved flag combinations, fall-back SYNs, partial
and truncated handshakes, hostile bytes).  Every packet is built here with scapy
(only to assemble headers and checksums) and written with a tiny pcap writer of
our own, so that the record lengths (caplen < orig_len) and timestamps are
exactly what we say.  Nothing is random except the hostile byte flips, which use
a fixed seed: rerunning the script produces byte-identical files.

The expected values are written from how each flow was built and from the RFC
rows named in each flow's "why" (RFC 3168 §6.1.1, RFC 9768 §3.1 Table 2), never
from tcpdiag's output.  See captures/crafted/README.md.
"""

import bisect
import heapq
import itertools
import json
import os
import random
import statistics
import struct
import sys

from scapy.layers.inet import ICMP, IP, TCP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw
from scapy.utils import checksum

from rfc_tables import (ACCECN_SYNACK, CODEPOINTS, ECN, NEGOTIATED, data_class,
                        data_sender)

MADE_BY = "captures/crafted/make-crafted.py"

# --------------------------------------------------------------------------
# constants

# ECN codepoints, the RFC 9768 Table 2 SYN-ACK rows and the docs/fields.md
# classes come from rfc_tables.py, shared with check-crafted.py.

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


# --------------------------------------------------------------------------
# pcap writer (classic libpcap format, microsecond timestamps, Ethernet)

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


# --------------------------------------------------------------------------
# one TCP connection, built packet by packet

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
             window=None, syn_opts=False, mss=None, ttl=None, ip_len0=False):
        """Write one segment from direction d ('c' or 's')."""
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
        data = payload_bytes(n, d)
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

    def exchange(self, req=(("not-ect", 180),), resp=(), opt=False, rtt=20.0):
        """Client request(s), server response segments, client ACKs every 2nd."""
        for i, (ecn, n) in enumerate(req):
            self.data("c", n, ecn, dt=0.1 if i == 0 else 0.05, accecn_opt=False)
        for i, (ecn, n) in enumerate(resp):
            self.data("s", n, ecn, dt=rtt if i == 0 else 0.12)
            if i % 2 == 1 or i == len(resp) - 1:
                self.pure_ack("c", dt=0.05, accecn_opt=opt)
        self.close()


# --------------------------------------------------------------------------
# expected-results helpers

def sender(conn):
    return data_sender(sum(conn.tally["c"].values()) > 0,
                       sum(conn.tally["s"].values()) > 0)


def expect(conn, outcome, why, *, cause, feedback=None, roles="known", syn_seen=True,
           synack_seen=True, packets=None, overrides=None, select=None, vantage=None):
    """The expected record of one flow.  Values restate how the flow was built.
    cause: (tcpdiag.diag.cause, the construction fact it rests on)."""
    e = {"tcpdiag.ecn.outcome": outcome}
    if roles == "known":
        e.update({
            "tcpdiag.flow.roles": "known",
            "tcpdiag.flow.client": conn.client,
            "tcpdiag.flow.server": conn.server,
            "tcpdiag.flow.client_port": conn.cport,
            "tcpdiag.flow.server_port": conn.sport,
            "tcpdiag.flow.client_mss": conn.syn_mss_seen if syn_seen else None,
            "tcpdiag.flow.server_mss": conn.synack_mss_seen if synack_seen else None,
            "tcpdiag.flow.data_sender": sender(conn),
            "tcpdiag.ecn.syn_ip_ecn": conn.syn_ecn if syn_seen else None,
            "tcpdiag.ecn.synack_ip_ecn": conn.synack_ecn if synack_seen else None,
        })
        for d, name in (("c", "c2s"), ("s", "s2c")):
            e["tcpdiag.flow.%s.bytes" % name] = conn.bytes[d]
            for cp in CODEPOINTS:
                e["tcpdiag.ecn.%s.%s" % (name, cp)] = conn.tally[d][cp]
            dc = data_class(outcome, conn.tally[d])
            if outcome == "unknown" and sum(conn.tally[d].values()) == 0:
                # docs: "unknown" when the outcome is unknown, "no-data" when
                # there is no data: both rules apply, either is accepted.
                dc = ["unknown", "no-data"]
            e["tcpdiag.ecn.%s.data" % name] = dc
    else:
        e.update({
            "tcpdiag.flow.roles": "unknown",
            "tcpdiag.flow.client": None,
            "tcpdiag.flow.server": None,
            "tcpdiag.flow.client_port": None,
            "tcpdiag.flow.server_port": None,
            "tcpdiag.dir": None,
            "tcpdiag.flow.c2s.bytes": None,
            "tcpdiag.flow.s2c.bytes": None,
            "tcpdiag.flow.client_mss": None,
            "tcpdiag.flow.server_mss": None,
            "tcpdiag.flow.data_sender": "unknown",
            "tcpdiag.ecn.syn_ip_ecn": None,
            "tcpdiag.ecn.synack_ip_ecn": None,
        })
        for name in ("c2s", "s2c"):
            for cp in CODEPOINTS:
                e["tcpdiag.ecn.%s.%s" % (name, cp)] = None
            e["tcpdiag.ecn.%s.data" % name] = None
    e["tcpdiag.ecn.accecn_feedback"] = feedback
    e["tcpdiag.flow.packets"] = conn.packets if packets is None else packets
    if vantage:
        # the handshake half that spans the path is 20 ms, the other one at most
        # 0.2 ms: written at that end ("unknown" tolerated as in every file)
        e["tcpdiag.flow.vantage"] = [vantage, "unknown"]
    if overrides:
        e.update(overrides)
    e.update(diagnosis(cause[0]))
    return {"select": select or {"tcp.port": conn.cport}, "why": why + diagnosis_why(*cause),
            "expect": e}


def diagnosis(cause):
    """The diagnosis fields of a flow: no crafted capture silences a host, so
    host.stall must be absent everywhere."""
    return {"tcpdiag.diag.cause": cause, "tcpdiag.host.stall": None}


def diagnosis_why(cause, reason):
    return (" Diagnosis (docs/diagnosis.md): cause '%s'. %s No host of this capture falls "
            "silent while flows wait on it, so there is no host stall." % (cause, reason))


def short(ecn=None):
    """The cause of a complete exchange of a request and a 3-segment answer, with its
    ECN setup when that is odd (reflected, invalid, declined, unnegotiated ECT...)."""
    reason = ("Data flowed after a captured handshake, and the transfer (the request and a "
              "3-segment answer) ends within a few round trips: too short to be slow for any "
              "of the causes.")
    if ecn:
        reason += " Its ECN setup (%s) is not by itself a slowness cause." % ecn
    return "none", reason


NO_PAYLOAD = ("unknown", "No payload in either direction: nothing to diagnose.")
OPTIONS_CUT = ("unknown", "The snaplen cuts the handshake's options, so the window scale is "
               "unknown and the analyses a cause rests on cannot be made.")


def write_expected(outdir, name, story, flows=None, flow_count=None, hosts=None,
                   robustness_only=False):
    doc = {"capture": name + ".pcap", "made_by": MADE_BY, "story": story}
    if robustness_only:
        doc["robustness_only"] = True
        if flow_count is not None:
            doc["flow_count"] = flow_count
    else:
        doc["flow_count"] = flow_count
        doc["flows"] = flows
        if hosts:
            doc["hosts"] = hosts
    with open(os.path.join(outdir, name + ".expected.json"), "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")


# Standard "why" fragments
WHY_DATA = ("Codepoint counts restate the IP-ECN field written on each data segment "
            "(payload > 0, retransmissions included); <dir>.data follows docs/fields.md "
            "(negotiated = classic, accecn or accecn-classic).")
WHY_SNAP = " Records are cut at 128 bytes (snaplen); headers are complete."


# --------------------------------------------------------------------------
# 1. AccECN SYN x every SYN-ACK row (IPv4) and 3. the same over IPv6

def accecn_rows(cap, client, server, port0, t0=0.0, dscp_port=None, v6=False):
    """Returns (flows, negotiated_count).  One flow per RFC 9768 Table 2 row."""
    flows = []
    rows = [
        # (SYN codepoint as written, SYN-ACK flags, SYN-ACK codepoint, outcome,
        #  feedback, client data cp, server data cps, note)
        ("not-ect", (0, 1, 0), "not-ect", "accecn", "not-ect", "ect1",
         ["ect1", "ect1", "ect1"],
         "RFC 9768 §3.1.2 Table 2 row 'AccECN | AccECN | 111 | 010 | AccECN (Not-ECT SYN)'. "
         "The SYN is Not-ECT as RFC 9768 clients normally send it; the server feeds that back."),
        ("ect1", (0, 1, 1), "ect1", "accecn", "ect1", "ect1",
         ["ect1", "ce", "ect1"],
         "RFC 9768 Table 2 row '111 | 011 | AccECN (ECT1 on SYN)': an L4S client (RFC 8311 "
         "experiment) sent the SYN ECT(1) and the server (ECN++ style) sent the SYN-ACK "
         "ECT(1), so the third ACK carries handshake ACE 0b011 (RFC 9768 Table 3). One "
         "server segment arrives CE, so the client's later ACE is 6 (r.cep starts at 5)."),
        ("ect0", (1, 0, 0), "not-ect", "accecn", "ect0", "ect0",
         ["ect0", "ect0", "ect0"],
         "RFC 9768 Table 2 row '111 | 100 | AccECN (ECT0 on SYN)'. The SYN carries ECT(0) "
         "(with DSCP AF21 in the same byte, so only the low two bits are the ECN field); "
         "both ends then send ECT(0) data, as an AccECN host with a classic congestion "
         "control does."),
        ("ce", (1, 1, 0), "not-ect", "accecn", "ce", "ect1",
         ["ect1", "ect1", "ect1"],
         "RFC 9768 Table 2 row '111 | 110 | AccECN (CE on SYN)': the SYN was sent ECT and "
         "marked CE before the capture point; the server feeds back CE. CE on a SYN is "
         "not counted in r.cep (RFC 9768 §3.2), so later ACEs stay 5."),
        ("not-ect", (0, 0, 1), "not-ect", "accecn-classic", None, "ect0",
         ["ect0", "ect0", "ect0"],
         "RFC 9768 Table 2 row 'AccECN | ECN | 111 | 001 | Classic ECN': a RFC 3168 server; "
         "both ends then follow RFC 3168 (ECT(0) data, ECE/CWR)."),
        ("not-ect", (0, 0, 0), "not-ect", "declined", None, "not-ect",
         ["not-ect", "not-ect", "not-ect"],
         "RFC 9768 Table 2 row 'AccECN | No ECN | 111 | 000 | Not ECN': the server does not "
         "do ECN; nobody sends ECT (RFC 9768 §3.1.5 'MUST NOT set ECT ... in Not ECN "
         "feedback mode')."),
        ("not-ect", (1, 1, 1), "not-ect", "reflected", None, "not-ect",
         ["not-ect", "not-ect", "not-ect"],
         "RFC 9768 Table 2 row 'AccECN | Broken | 111 | 111 | Not ECN': the server reflected "
         "the SYN's flags; the client MUST fall back to Not ECN (RFC 9768 §3.1.2 item 4) "
         "and sends Not-ECT."),
        ("not-ect", (1, 0, 1), "not-ect", "invalid", None, "ect1",
         ["ect0", "ect1", "ect0"],
         "RFC 9768 Table 2 row 'AccECN | Nonce | 111 | 101 | (Reserved)': a historic ECN-nonce "
         "(RFC 3540) server. The tcpdiag vocabulary calls this SYN-ACK 'invalid' (reserved). "
         "As RFC 9768 §3.1.3 requires, the client nevertheless enters AccECN mode and sends "
         "ECT(1); the nonce server sends ECT(0)/ECT(1) mixed. Since 'invalid' is not a "
         "negotiated outcome, both directions are 'unnegotiated-ect'."),
        ("ect0", (1, 1, 0), "not-ect", "accecn", "ce", "ect0",
         ["ect0", "ect0", "ect0"],
         "Feedback differs from the codepoint captured: the capture point is near the client, "
         "the SYN left it ECT(0) and was CE-marked after the capture point, so the server "
         "feeds back CE (RFC 9768 Table 2 '111 | 110'). syn_ip_ecn is what the capture shows "
         "(ect0); accecn_feedback is what the SYN-ACK says (ce)."),
        ("ect1", (0, 1, 0), "not-ect", "accecn", "not-ect", "ect1",
         ["ect1", "ect1", "ect1"],
         "Feedback differs from the codepoint captured: the SYN left the client ECT(1) and "
         "its ECN field was bleached to Not-ECT after the capture point, so the server feeds "
         "back Not-ECT (RFC 9768 Table 2 '111 | 010'). RFC 9768 §3.2.2.3 would call "
         "ECT->Not-ECT a mangling; the handshake outcome is still accecn."),
    ]
    negotiated = 0
    seg = (1440 if v6 else 1460) - 12  # client MSS minus the timestamp option
    for i, (syn_cp, sa, sa_cp, outcome, fb, c_cp, s_cps, note) in enumerate(rows):
        port = port0 + i
        c = Conn(cap, t0 + i * 60.0, client, server, port,
                 c_mss=1440 if v6 else 1460, s_mss=1420 if v6 else 1400,
                 c_dscp=18 if port == dscp_port else 0,
                 s_dscp=18 if port == dscp_port else 0)
        c.syn((1, 1, 1), ecn=syn_cp)
        c.synack(sa, ecn=sa_cp)
        if outcome == "accecn" or (outcome == "invalid" and sa == (1, 0, 1)):
            c.mode = "accecn"  # RFC 9768 §3.1.3: client treats 101 as AccECN
        elif outcome == "accecn-classic":
            c.mode = "classic"
        c.third_ack()
        if outcome == "invalid":
            # the client side is in AccECN mode, the nonce server is not: its
            # segments carry no ACE; write them by hand.
            c.data("c", 200, c_cp, dt=0.1)
            c.mode = "none"
            for j, cp in enumerate(s_cps):
                c.emit("s", PSH | ACK, n=seg if j < 2 else 600, ecn=cp,
                       dt=20.0 if j == 0 else 0.12)
                if j % 2 == 1 or j == len(s_cps) - 1:
                    c.emit("c", ACK | ace_bits(5), dt=0.05)
            c.emit("s", FIN | ACK, dt=5.0)
            c.emit("c", FIN | ACK | ace_bits(5), dt=0.3)
            c.emit("s", ACK, dt=20.0)
        else:
            c.exchange(req=((c_cp, 200),),
                       resp=tuple((cp, seg if j < 2 else 600) for j, cp in enumerate(s_cps)),
                       opt=(outcome == "accecn" and i < 2))
        if outcome in NEGOTIATED:
            negotiated += 1
        why = ("AccECN SYN (AE,CWR,ECE)=(1,1,1) sent %s; SYN-ACK (%d,%d,%d) sent %s. %s "
               "Outcome '%s' per the tcpdiag table for an AccECN SYN. %s%s"
               % (syn_cp, sa[0], sa[1], sa[2], sa_cp, note, outcome, WHY_DATA, WHY_SNAP))
        odd = None
        if outcome not in NEGOTIATED:
            odd = "outcome '%s'" % outcome
        elif fb not in (None, syn_cp):
            odd = "feedback %s for a SYN captured %s" % (fb, syn_cp)
        flows.append(expect(c, outcome, why, cause=short(odd), feedback=fb,
                            vantage="near-client"))
    return flows, negotiated


# The two AccECN-table captures: the same rows, over IPv4 and over IPv6.
ACCECN_V4 = dict(
    name="crafted-accecn-table", client="192.0.2.10", server="198.51.100.10",
    port0=40101, dscp_port=40103, v6=False,
    host_why="10 complete handshakes from this client, every SYN (AE,CWR,ECE)=(1,1,1); "
             "%d of them end accecn or accecn-classic",
    story="IPv4, capture point near the client. One AccECN connection per "
          "SYN-ACK row of RFC 9768 Table 2 (ports 40101-40108), plus two where "
          "the SYN's codepoint changed after the capture point (40109, 40110). "
          "Server 198.51.100.10:443, client 192.0.2.10.")
ACCECN_V6 = dict(
    name="crafted-ipv6-accecn", client="2001:db8:c1::10", server="2001:db8:51::10",
    port0=40301, dscp_port=40303, v6=True,
    host_why="10 complete handshakes, all AccECN SYNs; %d end accecn or accecn-classic",
    story="The AccECN table of crafted-accecn-table.pcap over IPv6: the ECN field "
          "is the low two bits of the traffic class (RFC 3168 §5, RFC 8200 §7); "
          "40303 also carries DSCP AF21 in the traffic class. Flow labels set. "
          "Client 2001:db8:c1::10, server [2001:db8:51::10]:443.")


def build_accecn_table(outdir, name, client, server, port0, dscp_port, v6,
                       host_why, story):
    cap = Capture(name)
    flows, neg = accecn_rows(cap, client, server, port0, dscp_port=dscp_port, v6=v6)
    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    hosts = [{"client": client,
              "why": host_why % neg,
              "expect": {"tcpdiag.host.conns": len(flows),
                         "tcpdiag.host.ecn_requested": len(flows),
                         "tcpdiag.host.ecn_negotiated": neg,
                         "tcpdiag.host.ecn_share": "%d of %d requested ECN" % (len(flows), len(flows))}}]
    write_expected(outdir, cap.name, story, flows, flow_count=len(flows), hosts=hosts)
    return flows


# --------------------------------------------------------------------------
# 2. classic SYN x SYN-ACK rows, and reserved SYN combinations

def build_classic_table(outdir):
    cap = Capture("crafted-classic-table")
    client, client2, server = "192.0.2.20", "192.0.2.21", "198.51.100.20"
    flows = []
    t = 0.0

    # 40201: classic, with a CE mark, ECE until CWR, and a Not-ECT retransmission
    c = Conn(cap, t, client, server, 40201)
    c.syn((0, 1, 1))
    c.synack((0, 0, 1))
    c.mode = "classic"
    c.third_ack()
    c.data("c", 180, "ect0", dt=0.1)
    base = c.nxt["s"]
    c.data("s", 1448, "ect0", dt=20.0)
    c.data("s", 1448, "ce", dt=0.12)
    c.pure_ack("c", dt=0.05)                      # ECE (CE received)
    c.nxt["s"] = (base + 2 * 1448 + 1448) & 0xFFFFFFFF  # 3rd segment lost before the capture point
    c.data("s", 1448, "ect0", dt=20.0)            # CWR: first new data after ECE
    sack = struct.pack(">II", (base + 3 * 1448) & 0xFFFFFFFF, (base + 4 * 1448) & 0xFFFFFFFF)
    c.emit("c", ACK, dt=0.05, ack=(base + 2 * 1448) & 0xFFFFFFFF,
           extra_opts=[("NOP", None), ("NOP", None), (5, sack)])  # dup ACK with SACK, no ECE after CWR
    c.emit("s", PSH | ACK, n=1448, ecn="not-ect", dt=20.0,
           seq=(base + 2 * 1448) & 0xFFFFFFFF, advance=False)  # retransmission: Not-ECT (RFC 3168 §6.1.5)
    c.pure_ack("c", dt=0.05)
    c.close()
    flows.append(expect(c, "classic",
        "Classic ECN-setup SYN (0,1,1) and ECN-setup SYN-ACK (ECE set, CWR clear) = (0,0,1): "
        "RFC 3168 §6.1.1 ('we call a SYN-ACK packet with only the ECE flag set but the CWR flag "
        "not set an ECN-setup SYN-ACK packet') and RFC 9768 Table 2 row 'ECN | AccECN | 011 | "
        "001 | Classic ECN'. Data: request ECT(0); server segments ECT(0), CE (marked upstream), "
        "ECT(0) with CWR, and a retransmission sent Not-ECT as RFC 3168 §6.1.5 requires, so "
        "s2c counts ect0=2, ce=1, not_ect=1 and s2c.data is 'ect'. " + WHY_DATA + WHY_SNAP,
        cause=("none", "One CE echo answered by one CWR and one retransmission (a single "
               "recovery): ecn-loss-reaction needs two measured ECN responses and path-loss "
               "two loss recoveries, and the 4-segment answer ends within a few round "
               "trips: too short to be slow for any of the causes."),
        vantage="near-client"))
    t += 60

    rows = [
        (40202, (0, 0, 0), "declined",
         "SYN-ACK (0,0,0): a non-ECN-setup SYN-ACK (RFC 3168 §6.1.1), the server declines; "
         "RFC 9768 Table 2 'No ECN'. Nobody sends ECT (RFC 3168 §6.1.1 'MUST NOT set ECT ... "
         "unless ... received at least one ECN-setup SYN or ECN-setup SYN-ACK').",
         "not-ect", ["not-ect", "not-ect", "not-ect"]),
        (40203, (0, 1, 1), "reflected",
         "SYN-ACK (0,1,1) = ECE and CWR both set: a reflector (RFC 3168 §6.1.1.2 'a receiver's "
         "reflection of its own flags ... as an indication that the receiver is not "
         "ECN-capable'); not an ECN-setup SYN-ACK, so no ECT data.",
         "not-ect", ["not-ect", "not-ect", "not-ect"]),
        (40204, (0, 1, 0), "invalid",
         "SYN-ACK (0,1,0) (CWR only) answering a classic SYN: RFC 3168 calls it a "
         "non-ECN-setup SYN-ACK; it is also the AccECN 'Not-ECT SYN' feedback, which RFC 9768 "
         "§3.1.1 forbids unless the SYN requested AccECN. tcpdiag: any SYN-ACK other than "
         "001/000/011 to a classic SYN is 'invalid'. The client sends no ECT.",
         "not-ect", ["not-ect", "not-ect", "not-ect"]),
        (40205, (1, 0, 0), "invalid",
         "SYN-ACK (1,0,0) answering a classic SYN: the AccECN 'ECT0 on SYN' feedback without an "
         "AccECN request (forbidden by RFC 9768 §3.1.1); tcpdiag 'invalid'. No ECT data.",
         "not-ect", ["not-ect", "not-ect", "not-ect"]),
        (40206, (1, 0, 1), "invalid",
         "SYN-ACK (1,0,1) = ECE + NS: a historic ECN-nonce server (RFC 3540, made historic by "
         "RFC 8311). tcpdiag calls any SYN-ACK other than 001/000/011 to a classic SYN 'invalid'. "
         "A RFC 3168 client ignores the NS/AE bit, sees ECE-only and uses ECN: it sends ECT(0); "
         "the nonce server sends ECT(0)/ECT(1). Outcome not negotiated, so both directions are "
         "'unnegotiated-ect'.",
         "ect0", ["ect1", "ect0", "ect1"]),
        (40207, (1, 1, 1), "invalid",
         "SYN-ACK (1,1,1) answering a classic SYN: neither the classic reflection (0,1,1) nor a "
         "defined answer; tcpdiag 'invalid'. No ECT data.",
         "not-ect", ["not-ect", "not-ect", "not-ect"]),
    ]
    for port, sa, outcome, note, c_cp, s_cps in rows:
        c = Conn(cap, t, client, server, port)
        c.syn((0, 1, 1))
        c.synack(sa)
        c.third_ack()
        c.exchange(req=((c_cp, 180),),
                   resp=tuple((cp, 1448 if j < 2 else 700) for j, cp in enumerate(s_cps)))
        flows.append(expect(c, outcome,
            "Classic ECN-setup SYN (AE,CWR,ECE)=(0,1,1) (RFC 3168 §6.1.1). " + note +
            " " + WHY_DATA + WHY_SNAP, cause=short("outcome '%s'" % outcome),
            vantage="near-client"))
        t += 60

    res = [
        (40211, (0, 0, 1), (0, 0, 0),
         "SYN (0,0,1), ECE only: not an ECN-setup SYN (RFC 3168 §6.1.1 needs ECE and CWR) and "
         "not an AccECN SYN; reserved per RFC 9768 §3.1.3. The RFC 3168 server answers (0,0,0)."),
        (40212, (0, 1, 0), (0, 1, 0),
         "SYN (0,1,0), CWR only: reserved. An AccECN server MUST negotiate as if (1,1,1) "
         "(RFC 9768 §3.1.3) and feeds back the Not-ECT SYN with (0,1,0); the outcome is still "
         "'invalid' because the SYN itself is a reserved combination. The server, in AccECN "
         "mode, sends ECT(0) data, which is therefore 'unnegotiated-ect'."),
        (40213, (1, 0, 0), (0, 0, 0),
         "SYN (1,0,0), AE only: reserved (RFC 9768 §3.1.3); a non-ECN server answers (0,0,0)."),
        (40214, (1, 0, 1), (0, 0, 1),
         "SYN (1,0,1): reserved (RFC 9768 §3.1.3). A server that only looks at ECE answers "
         "(0,0,1); whatever the SYN-ACK says, a reserved SYN makes the outcome 'invalid'."),
        (40215, (1, 1, 0), (1, 1, 0),
         "SYN (1,1,0): reserved (RFC 9768 §3.1.3); a reflector copies it into the SYN-ACK."),
    ]
    for port, s3, sa, note in res:
        c = Conn(cap, t, client2, server, port)
        c.syn(s3)
        c.synack(sa)
        s_cp = "not-ect"
        if port == 40212:
            c.mode = "accecn"
            s_cp = "ect0"
        c.third_ack()
        c.exchange(req=(("not-ect", 180),),
                   resp=tuple((s_cp, 1448 if j < 2 else 700) for j in range(3)))
        flows.append(expect(c, "invalid",
            note + " tcpdiag: a SYN with (AE,CWR,ECE) other than 000, 011 or 111 is 'invalid' "
            "whatever the SYN-ACK says. " + WHY_DATA + WHY_SNAP,
            cause=short("a reserved SYN, outcome 'invalid'"), vantage="near-client"))
        t += 60

    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    hosts = [
        {"client": client,
         "why": "7 complete handshakes from 192.0.2.20, every SYN a classic ECN-setup SYN "
                "(0,1,1); only 40201 ends 'classic'",
         "expect": {"tcpdiag.host.conns": 7, "tcpdiag.host.ecn_requested": 7,
                    "tcpdiag.host.ecn_negotiated": 1,
                    "tcpdiag.host.ecn_share": "7 of 7 requested ECN"}},
        {"client": client2,
         "why": "5 complete handshakes from 192.0.2.21, all with reserved SYN flag "
                "combinations; none negotiates (whether a reserved SYN counts as 'requested' "
                "is not asserted)",
         "expect": {"tcpdiag.host.conns": 5, "tcpdiag.host.ecn_negotiated": 0}},
    ]
    write_expected(outdir, cap.name,
                   "IPv4, capture near the client. Client 192.0.2.20 sends classic ECN-setup "
                   "SYNs (0,1,1) answered by each SYN-ACK row (40201-40207); client 192.0.2.21 "
                   "sends the five reserved SYN combinations (40211-40215). Server "
                   "198.51.100.20:443.", flows, flow_count=len(flows), hosts=hosts)
    return flows


# --------------------------------------------------------------------------
# 4. fall-back

def build_fallback(outdir):
    cap = Capture("crafted-fallback")
    client, server = "192.0.2.40", "198.51.100.40"
    flows = []

    def finish(c, mode="none", c_cp="not-ect", s_cp="not-ect"):
        c.mode = mode
        c.third_ack()
        c.exchange(req=((c_cp, 180),), resp=((s_cp, 1448), (s_cp, 1448), (s_cp, 500)))

    def blackhole(lost, note=""):
        return ("ecn-blackhole", "The ECN-setup SYN was retried with the same ISN and without "
                "ECN flags (outcome fallback): the client lost %s to SYN retransmission "
                "timeouts before its plain SYN was answered.%s" % (lost, note))
    # the ECN SYN-ACK was captured, so the ECN SYN itself got through
    synack_lost = (" Here the ECN SYN-ACK was captured and lost after the capture point, so no "
                   "middlebox dropped the ECN SYN; the rule goes by the outcome.")
    retried = short("a SYN retransmitted once, 1 s lost, with its flags unchanged: no fall-back")

    # 40401: Linux style (tcp_ecn_fallback): AccECN SYN, first retransmission without flags
    c = Conn(cap, 0.0, client, server, 40401)
    c.syn((1, 1, 1))
    c.syn((0, 0, 0), dt=1000.0)
    c.synack((0, 0, 0))
    finish(c)
    flows.append(expect(c, "fallback",
        "AccECN SYN (1,1,1) unanswered, retransmitted 1 s later with the same ISN and "
        "(AE,CWR,ECE)=(0,0,0) (Linux tcp_ecn_clear_syn with tcp_ecn_fallback=1; RFC 9768 "
        "§3.1.4.1 allows other fall-back strategies); the server answers the plain SYN with "
        "(0,0,0). tcpdiag: ECN-setup SYN followed by a same-ISN SYN without ECN flags = "
        "'fallback'. syn_ip_ecn is the last SYN's codepoint. No ECT data (RFC 3168 §6.1.1: a "
        "host that sent a non-ECN-setup SYN MUST NOT set ECT). " + WHY_DATA + WHY_SNAP,
        cause=blackhole("1 s")))

    # 40402: RFC 9768 §3.1.4.1 recommended: retry AccECN once, then clear
    c = Conn(cap, 200.0, client, server, 40402)
    c.syn((1, 1, 1))
    c.syn((1, 1, 1), dt=1000.0)
    c.syn((0, 0, 0), dt=2000.0)
    c.synack((0, 0, 0))
    finish(c)
    flows.append(expect(c, "fallback",
        "RFC 9768 §3.1.4.1: the client 'SHOULD attempt to negotiate the use of AccECN at least "
        "one more time' on the first retransmitted SYN, then 'SHOULD send subsequent "
        "retransmissions of the SYN with the three TCP-ECN flags cleared' with 'the same "
        "initial sequence number'. SYNs at 0, 1 s, 3 s; SYN-ACK (0,0,0) to the last. "
        "'fallback'. " + WHY_DATA + WHY_SNAP, cause=blackhole("3 s")))

    # 40403: classic, RFC 3168 §6.1.1.1
    c = Conn(cap, 400.0, client, server, 40403)
    c.syn((0, 1, 1))
    c.syn((0, 0, 0), dt=1000.0)
    c.synack((0, 0, 0))
    finish(c)
    flows.append(expect(c, "fallback",
        "RFC 3168 §6.1.1.1: 'A host that receives no reply to an ECN-setup SYN within the "
        "normal SYN retransmission timeout interval MAY resend the SYN and any subsequent SYN "
        "retransmissions with CWR and ECE cleared.' Classic SYN (0,1,1), then same-ISN SYN "
        "(0,0,0), SYN-ACK (0,0,0): 'fallback'. " + WHY_DATA + WHY_SNAP, cause=blackhole("1 s")))

    # 40404: control, classic SYN retransmitted unchanged
    c = Conn(cap, 600.0, client, server, 40404)
    c.syn((0, 1, 1))
    c.syn((0, 1, 1), dt=1000.0)
    c.synack((0, 0, 1))
    finish(c, "classic", "ect0", "ect0")
    flows.append(expect(c, "classic",
        "Control: classic SYN retransmitted with its ECN flags unchanged (RFC 3168 §6.1.1.1 "
        "'may retransmit one or more ECN-setup SYN packets'); SYN-ACK (0,0,1) = ECN-setup "
        "SYN-ACK: 'classic', not 'fallback'. ECT(0) data both ways. " + WHY_DATA + WHY_SNAP,
        cause=retried))

    # 40405: control, AccECN SYN retransmitted unchanged
    c = Conn(cap, 800.0, client, server, 40405)
    c.syn((1, 1, 1))
    c.syn((1, 1, 1), dt=1000.0)
    c.synack((0, 1, 0))
    finish(c, "accecn", "ect1", "ect1")
    flows.append(expect(c, "accecn", feedback="not-ect",
        why="Control: AccECN SYN retransmitted once with (1,1,1) as RFC 9768 §3.1.4.1 "
        "recommends; SYN-ACK (0,1,0) (Table 2, Not-ECT SYN): 'accecn', feedback not-ect. "
        + WHY_DATA + WHY_SNAP, cause=retried))

    # 40406: control, plain SYN retransmitted
    c = Conn(cap, 1000.0, client, server, 40406)
    c.syn((0, 0, 0))
    c.syn((0, 0, 0), dt=1000.0)
    c.synack((0, 0, 0))
    finish(c)
    flows.append(expect(c, "not-requested",
        "Control: a SYN without ECN flags retransmitted unchanged; nothing to fall back from: "
        "'not-requested'. " + WHY_DATA + WHY_SNAP, cause=retried))

    # 40407: RFC 3168 §6.1.1.1 example, seen at a point where the first SYN-ACK is visible
    c = Conn(cap, 1200.0, client, server, 40407)
    c.syn((0, 1, 1))
    c.synack((0, 0, 1))     # lost after the capture point
    c.syn((0, 0, 0), dt=980.0)
    c.synack((0, 0, 0))
    finish(c)
    flows.append(expect(c, "fallback",
        "The RFC 3168 §6.1.1.1 example: '(1) Host A: Sends an ECN-setup SYN. (2) Host B: Sends "
        "an ECN-setup SYN/ACK, packet is dropped or delayed. (3) Host A: Sends a non-ECN-setup "
        "SYN. (4) Host B: Sends a non-ECN-setup SYN/ACK ... neither Host A nor Host B may set "
        "the ECT bit on data packets.' The first SYN-ACK (0,0,1) is captured but lost later. "
        "The same-ISN SYN without ECN flags makes it 'fallback'; synack_ip_ecn is the last "
        "SYN-ACK's. " + WHY_DATA + WHY_SNAP, cause=blackhole("0.98 s", synack_lost)))

    # 40408: AccECN variant: the server is already in AccECN mode when the plain SYN arrives
    c = Conn(cap, 1400.0, client, server, 40408)
    c.syn((1, 1, 1))
    c.synack((0, 1, 0))     # lost after the capture point
    c.syn((0, 0, 0), dt=980.0)
    c.synack((0, 1, 0))     # RFC 9768 §3.1.5: server in AccECN mode SHOULD answer AccECN again
    finish(c, "accecn", "not-ect", "not-ect")
    flows.append(expect(c, "fallback", feedback=None,
        why="AccECN SYN, AccECN SYN-ACK (0,1,0) lost after the capture point, retried SYN "
        "(0,0,0) with the same ISN, answered again with an AccECN SYN-ACK (0,1,0) as RFC 9768 "
        "§3.1.5 recommends ('SHOULD acknowledge a valid SYN arriving with (AE,CWR,ECE) = "
        "(0,0,0) by emitting an AccECN SYN/ACK'). The tcpdiag rule makes any ECN SYN followed "
        "by a same-ISN SYN without ECN flags 'fallback'. The server 'MUST NOT set ECT' after a "
        "(0,0,0) SYN (RFC 9768 §3.1.5) and the client chooses not to either (it MAY): no ECT "
        "data. " + WHY_DATA + WHY_SNAP, cause=blackhole("0.98 s", synack_lost)))

    # 40409: not a fall-back: a tracebox-style probe.  The AccECN SYN is first sent
    # with TTL 3; hop 3 answers ICMP time-exceeded quoting the SYN as it arrived,
    # with the ECN flags already cleared by a middlebox at hop 1-2.  Wireshark puts
    # the quoted TCP header in the same tcp.stream.  The SYN is then sent again (same
    # ISN, TTL 64); it arrives with (0,0,0) and the server answers (0,0,0).
    c = Conn(cap, 1600.0, client, server, 40409)
    syn = c.syn((1, 1, 1), ttl=3)
    hop = "203.0.113.3"
    quoted = bytearray(syn[14:])
    quoted[8] = 1                               # TTL as it arrived at hop 3
    q = IP(bytes(quoted))
    q.ttl = 1
    q[TCP].flags = SYN                          # ECE/CWR/AE cleared by the middlebox
    del q.chksum
    del q[TCP].chksum
    icmp = bytes(Ether(src=SERVER_MAC, dst=CLIENT_MAC) /
                 IP(src=hop, dst=client, tos=0xC0, ttl=62, id=4242) /
                 ICMP(type=11, code=0) / Raw(bytes(q)))
    c.t += 9000
    cap.add(c.t, icmp)
    c.packets += 1                              # Wireshark gives the quote the flow's tcp.stream
    c.syn((1, 1, 1), dt=1000.0)
    c.synack((0, 0, 0))
    finish(c)
    flows.append(expect(c, "declined",
        "Not a fall-back. A tracebox-style probe: the AccECN SYN (1,1,1) goes out with TTL 3; "
        "hop 3 (203.0.113.3) returns ICMP time-exceeded quoting the whole SYN as it arrived "
        "there, with AE/CWR/ECE already cleared by a middlebox (the quote shows SYN flags "
        "(0,0,0) and the same ISN). Wireshark 4.0.17 dissects the quoted TCP header into the "
        "same tcp.stream, but a TCP header inside an ICMP error is not a SYN the client sent. "
        "The client then sends the same AccECN SYN with TTL 64; the middlebox clears the "
        "flags again, so the server answers (0,0,0): AccECN SYN + SYN-ACK (0,0,0) = "
        "'declined' (RFC 9768 Table 2 'Not ECN'). syn_ip_ecn is the real SYN's (not-ect), "
        "not the ICMP packet's outer CS6 byte. packets counts the ICMP frame, which carries "
        "the flow's tcp.stream. " + WHY_DATA + WHY_SNAP,
        cause=short("declined; the ICMP quote is no fall-back and the resent SYN kept its "
                    "flags")))

    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    write_expected(outdir, cap.name,
                   "IPv4, client 192.0.2.40, server 198.51.100.40:443. ECN SYNs retried "
                   "without ECN flags (same ISN) -> 'fallback' (40401-40403, 40407, 40408), "
                   "retried unchanged as controls (40404-40406), and 40409: an ICMP "
                   "time-exceeded quoting the SYN with its ECN flags cleared (not a "
                   "fall-back).",
                   flows, flow_count=len(flows))
    return flows


# --------------------------------------------------------------------------
# 5. partial handshakes

def build_partial(outdir):
    cap = Capture("crafted-partial-handshakes")
    client, server = "192.0.2.50", "198.51.100.50"
    flows = []
    no_synack = ("unknown", "The SYN-ACK is not captured: the server's window scale and the "
                 "round trip are unknown, so the analyses a cause rests on cannot be made.")

    # 40501: classic ECN SYN only, retried with the same flags
    c = Conn(cap, 0.0, client, server, 40501)
    c.syn((0, 1, 1))
    c.syn((0, 1, 1), dt=1000.0)
    c.syn((0, 1, 1), dt=2000.0)
    flows.append(expect(c, "unknown", synack_seen=False,
        why="Classic ECN-setup SYN sent three times (same ISN, ECN flags kept), never answered "
        "in the capture. tcpdiag: a SYN requesting ECN with no SYN-ACK captured is 'unknown' "
        "(the answer is not visible). Roles are known from the SYN; server_mss and "
        "synack_ip_ecn absent. No data: <dir>.data may be 'unknown' (outcome unknown) or "
        "'no-data'.", cause=NO_PAYLOAD))

    # 40502: plain SYN only
    c = Conn(cap, 100.0, client, server, 40502)
    c.syn((0, 0, 0))
    c.syn((0, 0, 0), dt=1000.0)
    flows.append(expect(c, "not-requested", synack_seen=False,
        why="SYN without ECN flags (retried once), no SYN-ACK. tcpdiag: a SYN with "
        "(AE,CWR,ECE)=(0,0,0) is 'not-requested' whatever follows (RFC 3168 §6.1.1: only an "
        "ECN-setup SYN requests ECN). No data in either direction: 'no-data'.",
        cause=NO_PAYLOAD))

    # 40503: SYN-ACK onwards (capture started after the SYN)
    c = Conn(cap, 200.0, client, server, 40503)
    c.synack((0, 1, 0))
    c.mode = "accecn"
    c.third_ack()
    c.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 1448), ("ect1", 400)))
    flows.append(expect(c, "unknown", syn_seen=False,
        why="The capture starts with the SYN-ACK (an AccECN (0,1,0) answer): without the SYN "
        "the request is not visible, so 'unknown'. The SYN-ACK fixes the roles (client = its "
        "receiver), so roles 'known', server_mss from the SYN-ACK, client_mss and syn_ip_ecn "
        "absent; codepoint counts still restate what was written; <dir>.data 'unknown' "
        "because the outcome is unknown. " + WHY_SNAP,
        cause=("unknown", "The SYN is not captured: the client's window scale is unknown, "
               "so the analyses a cause rests on cannot be made.")))

    # 40504: mid-flow only: no SYN, no SYN-ACK
    c = Conn(cap, 300.0, client, server, 40504)
    c.nxt = {"c": c.c_isn + 1 + 5000, "s": c.s_isn + 1 + 800000}
    c.mode = "classic"
    for j in range(4):
        c.data("s", 1448, "ect0", dt=0.12 if j else 0.0)
        if j % 2:
            c.pure_ack("c", dt=0.05)
    c.close()
    flows.append(expect(c, "unknown", roles="unknown",
        why="Mid-flow capture: only server data (ECT(0)), client ACKs and the FINs; no SYN, no "
        "SYN-ACK. tcpdiag: no SYN -> 'unknown'; neither handshake packet -> roles 'unknown' "
        "and the role-named fields (client/server, mss, c2s.*, s2c.*) absent rather than "
        "guessed (docs/fields.md); data_sender 'unknown'. " + WHY_SNAP,
        cause=("unknown", "Neither SYN nor SYN-ACK is captured: roles, window scale and "
               "round trip are unknown.")))

    # 40505: not requested, but the server sends ECT(0)
    c = Conn(cap, 400.0, client, server, 40505)
    c.syn((0, 0, 0))
    c.synack((0, 0, 0))
    c.third_ack()
    c.exchange(req=(("not-ect", 180),), resp=(("ect0", 1448), ("ect0", 1448), ("ect0", 700)))
    flows.append(expect(c, "not-requested",
        why="SYN (0,0,0), SYN-ACK (0,0,0): 'not-requested'. The server nevertheless sends ECT(0) "
        "data, which RFC 3168 §6.1.1 forbids ('MUST NOT set ECT on data packets unless it has "
        "sent ... and received at least one ECN-setup SYN or ECN-setup SYN-ACK'): s2c.data "
        "'unnegotiated-ect'; c2s.data 'not-ect'. " + WHY_DATA + WHY_SNAP,
        cause=short("ECT(0) data without negotiation")))

    # 40506: declined, server sends ECT(1) anyway
    c = Conn(cap, 500.0, client, server, 40506)
    c.syn((0, 1, 1))
    c.synack((0, 0, 0))
    c.third_ack()
    c.exchange(req=(("not-ect", 180),), resp=(("ect1", 1448), ("ect1", 1448), ("ect1", 700)))
    flows.append(expect(c, "declined",
        why="Classic SYN (0,1,1), SYN-ACK (0,0,0) declines (RFC 3168 §6.1.1 non-ECN-setup "
        "SYN-ACK): 'declined'. The server still sends ECT(1) (an L4S sender ignoring the "
        "negotiation): s2c.data 'unnegotiated-ect'. " + WHY_DATA + WHY_SNAP,
        cause=short("declined, then ECT(1) data anyway")))

    # 40507: ECN++ style ECT(0) on the SYN, declined (Linux refuses ECN when the SYN is ECT)
    c = Conn(cap, 600.0, client, server, 40507)
    c.syn((0, 1, 1), ecn="ect0")
    c.synack((0, 0, 0))
    c.third_ack()
    c.exchange(req=(("not-ect", 180),), resp=(("not-ect", 1448), ("not-ect", 1448), ("not-ect", 700)))
    flows.append(expect(c, "declined",
        why="Classic SYN (0,1,1) sent ECT(0) (ECN++ / RFC 8311 experiment; RFC 3168 §6.1.1 "
        "says 'A host MUST NOT set ECT on SYN'); the server declines with (0,0,0), as Linux "
        "tcp_ecn_create_request() does for an ECT SYN. 'declined', syn_ip_ecn 'ect0'. "
        + WHY_DATA + WHY_SNAP, cause=short("an ECT(0) SYN, declined")))

    # 40508: ECN SYN, SYN-ACK missing from the capture, rest present
    c = Conn(cap, 700.0, client, server, 40508)
    c.syn((0, 1, 1))
    c.nxt["s"] = c.s_isn + 1
    c.t += 20000          # the SYN-ACK would be here; not captured
    c.third_ack()
    c.exchange(req=(("not-ect", 180),), resp=(("not-ect", 1448), ("not-ect", 1448), ("not-ect", 700)))
    flows.append(expect(c, "unknown", synack_seen=False,
        why="Classic ECN SYN captured, SYN-ACK missing from the capture (capture loss), then the "
        "ACK and data. tcpdiag: 'SYN requesting ECN but no SYN-ACK captured' -> 'unknown' "
        "(the data shows no ECT, but absence of ECT does not prove a decline). Roles known "
        "from the SYN; <dir>.data 'unknown'. " + WHY_SNAP, cause=no_synack))

    # 40509: plain SYN, SYN-ACK missing, rest present
    c = Conn(cap, 800.0, client, server, 40509)
    c.syn((0, 0, 0))
    c.nxt["s"] = c.s_isn + 1
    c.t += 20000
    c.third_ack()
    c.exchange(req=(("not-ect", 180),), resp=(("not-ect", 1448), ("not-ect", 1448), ("not-ect", 700)))
    flows.append(expect(c, "not-requested", synack_seen=False,
        why="SYN without ECN flags, SYN-ACK missing from the capture: 'not-requested' (the SYN "
        "alone decides). Not-ECT data both ways: 'not-ect'. " + WHY_DATA + WHY_SNAP,
        cause=no_synack))

    # 40510: AccECN SYN only
    c = Conn(cap, 900.0, client, server, 40510)
    c.syn((1, 1, 1))
    flows.append(expect(c, "unknown", synack_seen=False,
        why="A single AccECN SYN (1,1,1), nothing else: 'unknown' (request without a visible "
        "answer). Roles known from the SYN. No data: <dir>.data 'unknown' or 'no-data'.",
        cause=NO_PAYLOAD))

    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    write_expected(outdir, cap.name,
                   "IPv4, client 192.0.2.50, server 198.51.100.50:443. Handshakes with pieces "
                   "missing from the capture (SYN only, SYN-ACK onwards, mid-flow, SYN-ACK "
                   "lost at the capture), and ECT used without or against negotiation.",
                   flows, flow_count=len(flows))
    return flows


# --------------------------------------------------------------------------
# 6. truncated

def build_truncated(outdir):
    cap = Capture("crafted-truncated", snaplen=54)
    client, server = "192.0.2.60", "198.51.100.60"
    flows = []
    stream = 0

    # 40601: AccECN, all records cut at 54 bytes (Ethernet + IPv4 + 20-byte TCP header):
    # flags complete, options (MSS) cut.
    c = Conn(cap, 0.0, client, server, 40601)
    c.syn((1, 1, 1))
    c.synack((0, 1, 0))
    c.mode = "accecn"
    c.third_ack()
    c.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 1448), ("ect1", 400)))
    c.syn_mss_seen = c.synack_mss_seen = None
    flows.append(expect(c, "accecn", feedback="not-ect", select={"tcp.stream": stream},
        why="Snaplen 54: each record holds Ethernet, the 20-byte IPv4 header and the fixed "
        "20-byte TCP header, so the flags (and ACE) are complete but every TCP option is cut. "
        "AccECN SYN (1,1,1) Not-ECT, SYN-ACK (0,1,0): 'accecn', feedback not-ect (RFC 9768 "
        "Table 2). The MSS options were sent but not captured: client_mss/server_mss absent. "
        "Payload lengths come from the IPv4 total length, so codepoint counts are still "
        "known. " + WHY_DATA, cause=OPTIONS_CUT))
    stream += 1

    # 40602: classic, all cut at 54
    c = Conn(cap, 100.0, client, server, 40602)
    c.syn((0, 1, 1))
    c.synack((0, 0, 1))
    c.mode = "classic"
    c.third_ack()
    c.exchange(req=(("ect0", 180),), resp=(("ect0", 1448), ("ect0", 1448), ("ect0", 700)))
    c.syn_mss_seen = c.synack_mss_seen = None
    flows.append(expect(c, "classic", select={"tcp.stream": stream},
        why="Snaplen 54 as above. Classic SYN (0,1,1), SYN-ACK (0,0,1): 'classic' (RFC 3168 "
        "§6.1.1). MSS options not captured: absent. " + WHY_DATA, cause=OPTIONS_CUT))
    stream += 1

    # 40603: the SYN record is cut at 47 bytes (13 bytes of TCP: CWR/ECE byte missing);
    # the rest at 54.  Wireshark 4.0.17 does not dissect a TCP header shorter than 20
    # bytes, so the SYN belongs to no tcp.stream; the stream starts at the SYN-ACK.
    c = Conn(cap, 200.0, client, server, 40603)
    c.syn((1, 1, 1), caplen=47)
    c.packets -= 1
    c.synack((0, 1, 0))
    c.mode = "accecn"
    c.third_ack()
    c.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 1448), ("ect1", 400)))
    c.synack_mss_seen = None
    flows.append(expect(c, "unknown", syn_seen=False, select={"tcp.stream": stream},
        why="The SYN record holds only 13 bytes of TCP header (caplen 47): its AE bit is "
        "captured but CWR/ECE are not, and Wireshark 4.0.17 dissects no TCP fields (no "
        "tcp.stream) for fewer than 16 captured TCP header bytes. The flow, as Wireshark numbers "
        "it, starts at the SYN-ACK: the SYN's flags are not known, so 'unknown'; roles known "
        "from the SYN-ACK; SYN-ACK MSS cut (absent). Selected by tcp.stream because the cut "
        "SYN still carries tcp.port. packets counts the frames of the tcp.stream. " + WHY_SNAP.replace("128", "54"),
        cause=("unknown", "The SYN is not dissected, so the flow has no SYN, and the "
               "SYN-ACK's options are cut by the snaplen: the window scale is unknown.")))
    stream += 1

    # 40604: VLAN-tagged flow; snaplen 54 leaves 16 bytes of TCP header: flags and
    # window captured, checksum/urgent/options cut.  Wireshark 4.0.17 dissects it.
    c = Conn(cap, 300.0, client, server, 40604, vlan=60)
    c.syn((1, 1, 1))
    c.synack((0, 1, 0))
    c.mode = "accecn"
    c.third_ack()
    c.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 400)))
    c.syn_mss_seen = c.synack_mss_seen = None
    flows.append(expect(c, "accecn", feedback="not-ect", select={"tcp.stream": stream},
        why="802.1Q-tagged flow under the same 54-byte snaplen: the 4-byte tag leaves 16 "
        "bytes of TCP header per record (ports, seq, ack, offset, flags, window; checksum, "
        "urgent pointer and options cut). Wireshark 4.0.17 dissects a TCP header from 16 "
        "captured bytes on, so the flags are known: AccECN SYN, SYN-ACK (0,1,0) -> 'accecn', "
        "feedback not-ect. MSS absent (not captured). " + WHY_DATA, cause=OPTIONS_CUT))
    stream += 1

    # 40606: QinQ (two 802.1Q tags): 12 bytes of TCP header per record.  Wireshark
    # 4.0.17 shows the ports but no flags and no tcp.stream: no flow exists.
    c = Conn(cap, 400.0, client, server, 40606, vlan=(100, 60))
    c.syn((1, 1, 1))
    c.synack((0, 1, 0))
    c.mode = "accecn"
    c.third_ack()
    c.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 400)))
    flows.append({"select": {"tcp.port": 40606},
        "why": "QinQ (802.1ad/802.1Q double tag) flow under the 54-byte snaplen: 12 bytes of "
               "TCP header per record, the flags byte is not captured. Wireshark 4.0.17 "
               "shows tcp.srcport/dstport but no tcp.flags and no tcp.stream for a TCP "
               "header shorter than 16 captured bytes, so there is no flow to analyse: no "
               "tcpdiag flow field may appear on these frames (in particular no outcome "
               "guessed from partial headers, and no diagnosis: a cause, even 'unknown', "
               "belongs to a flow).",
        "expect": dict({"tcpdiag.ecn.outcome": None, "tcpdiag.flow.roles": None,
                        "tcpdiag.flow.client": None, "tcpdiag.ecn.syn_ip_ecn": None},
                       **diagnosis(None))})

    # 40605: IPv6: snaplen 54 = Ethernet + IPv6 header only.
    c6 = Conn(cap, 500.0, "2001:db8:c1::60", "2001:db8:51::60", 40605)
    c6.syn((1, 1, 1))
    c6.synack((0, 1, 0))
    c6.mode = "accecn"
    c6.third_ack()
    c6.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 400)))
    # Not selectable (no TCP field at all); stated in the story.

    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    write_expected(outdir, cap.name,
                   "Snaplen 54 (pcap header snaplen 54; records caplen <= 54, orig_len the "
                   "real length). 40601/40602: full 20-byte TCP headers, options cut. 40603: "
                   "SYN cut to 13 TCP bytes, the rest at 54. 40604: VLAN-tagged, 16 TCP bytes "
                   "per record. 40606: QinQ, 12 TCP bytes per record. 40605: IPv6 flow of "
                   "which only Ethernet + IPv6 header (54 bytes) is captured; it has no TCP "
                   "fields and cannot be selected. Wireshark 4.0.17 dissects TCP (flags, "
                   "tcp.stream) only when at least 16 bytes of the TCP header are captured: "
                   "flow_count 4 (streams 0-3). Client 192.0.2.60, server 198.51.100.60:443.",
                   flows, flow_count=stream)
    return flows


# --------------------------------------------------------------------------
# 7. hostile corpus (robustness only)

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

    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    write_expected(outdir, cap.name,
                   "Robustness corpus (%d frames): three valid seed flows (AccECN IPv4, "
                   "classic IPv6, accecn-classic IPv4), damaged TCP headers (data offset 0/1/4/15, "
                   "bad option lengths, AccECN options of wrong size), SYN+FIN+RST, damaged IPv4 "
                   "(total length 0..65535, IHL 0/4/15, version 6, fragments), IPv6 with bogus "
                   "payload lengths and hop-by-hop, zero-length and 3-byte frames, duplicate "
                   "SYNs with different ISNs, a 4-tuple reused after FIN, SYN-ACK before SYN, "
                   "simultaneous open, ICMP errors quoting a SYN, IP-in-IP / IPv4-in-IPv6 / "
                   "QinQ (two ECN fields per frame), all 512 TCP flag combinations on one "
                   "4-tuple, 360 seed packets with 1-4 bits flipped and 120 cut at random "
                   "lengths (random.Random(20250301))." % len(cap.records),
                   robustness_only=True)


# --------------------------------------------------------------------------
# 8. handshake options (tcpdiag.opts, docs/fields.md)

# 65535 / handshake RTT, with the RTT measured at the client as SYN -> ACK
# (20.2 ms) or SYN -> SYN-ACK (20 ms): the range takes both and a little slack.
OPTS_CEILING_RANGE = {"min": int(65535 / 0.0203), "max": int(65535 / 0.0199) + 1}


def linux_opts(c, d, mss=None, sack=False, ts=False, ws=None, extra=()):
    """Options in the layout Linux writes: MSS, SACK_PERM+TS (or NOP NOP TS /
    NOP NOP SACK_PERM), NOP WS, then `extra`.  Timestamps follow Conn's clocks."""
    o = []
    if mss is not None:
        o.append(("MSS", mss))
    if ts:
        (name, val), other = c.tsopt(d)
        c.ts_seen[other] = c.ts[d]
        o += [("SAckOK", b"")] if sack else [("NOP", None), ("NOP", None)]
        o.append((name, val))
    elif sack:
        o += [("NOP", None), ("NOP", None), ("SAckOK", b"")]
    if ws is not None:
        o += [("NOP", None), ("WScale", ws)]
    return o + list(extra)


def opts_flow(cap, t0, client, server, port, syn_o, synack_o, seg, n_seg,
              c_win, s_win, gap_ms=None, rounds=None, ts=True, ts_strip_after=None,
              flags3=((0, 0, 0), (0, 0, 0)), syn_extra=(), c_mss=1460, s_mss=1460):
    """One download: SYN, SYN-ACK, ACK, a 180-byte request, n_seg server segments
    of `seg` bytes, the client ACKing every second one, then the server's FIN.

    syn_o / synack_o: dicts for linux_opts (mss, sack, ts, ws), or None for a
    header without options.  ts: whether data segments carry timestamps (both
    sides announced them).  ts_strip_after: server segments after this many data
    segments arrive without any option (stripped before the capture point).
    Timing: gap_ms between server segments (paced), or `rounds` of segments
    0.12 ms apart, one round per 20.2 ms RTT (window-limited, ACK-clocked)."""
    c = Conn(cap, t0, client, server, port, c_mss=c_mss, s_mss=s_mss)
    c.syn_ecn, c.synack_ecn = "not-ect", "not-ect"
    c.syn_mss_seen = (syn_o or {}).get("mss")
    c.synack_mss_seen = (synack_o or {}).get("mss")
    so = linux_opts(c, "c", **syn_o, extra=syn_extra) if syn_o else []
    c.emit("c", SYN | aef(*flags3[0]), seq=c.c_isn, opts=so, window=c_win if not syn_o else 64240,
           dt=0.0)
    sao = linux_opts(c, "s", **synack_o) if synack_o else []
    c.emit("s", SYN | ACK | aef(*flags3[1]), seq=c.s_isn, ack=c.c_isn + 1, opts=sao,
           window=s_win if not (synack_o or {}).get("ws") else 65160, dt=20.0)
    if flags3 == ((1, 1, 1), (0, 1, 0)):
        c.mode = "accecn"
    stripped = {"n": 0}

    def o(d):
        if d == "s" and ts_strip_after is not None and stripped["n"] >= ts_strip_after:
            return []                          # a middlebox removed the option
        return linux_opts(c, d, ts=True) if ts else []

    cw = None if (syn_o or {}).get("ws") is not None and (synack_o or {}).get("ws") is not None else c_win
    sw = None if cw is None else s_win
    # third ACK; in AccECN mode it carries the handshake ACE for a Not-ECT SYN-ACK (Table 3)
    c.emit("c", ACK | (ace_bits(HANDSHAKE_ACE["not-ect"]) if c.mode == "accecn" else 0),
           opts=o("c"), window=cw, dt=0.2)
    c.emit("c", PSH | ACK | c.ecn_flags("c", 180), n=180, opts=o("c"), window=cw, dt=0.1)
    # arrival time of each server segment after the first (which comes 20 ms
    # after the request), in microseconds
    if rounds:
        per = n_seg // rounds
        offs = [r * 20200 + j * 120 for r in range(rounds) for j in range(per)]
    else:
        offs = [int(round(i * gap_ms * 1000)) for i in range(n_seg)]
    first = c.t + 20000
    for i, off in enumerate(offs):
        last = i == len(offs) - 1
        dt = (first + off - c.t) / 1000.0
        ecn = "ect1" if c.mode == "accecn" else "not-ect"
        c.emit("s", (PSH if last else 0) | ACK | c.ecn_flags("s", seg), n=seg, ecn=ecn,
               opts=o("s"), window=sw, dt=dt)
        stripped["n"] += 1
        if i % 2 == 1 or last:
            extra = c.accecn_opt("c") if c.mode == "accecn" and ts else []
            c.emit("c", ACK | c.ecn_flags("c", 0), opts=o("c") + extra, window=cw, dt=0.05)
    c.emit("s", FIN | ACK | c.ecn_flags("s", 0), opts=o("s"), window=sw, dt=5.0)
    c.emit("c", FIN | ACK | c.ecn_flags("c", 0), opts=o("c"), window=cw, dt=0.3)
    c.emit("s", ACK | c.ecn_flags("s", 0), opts=o("s"), window=sw, dt=20.0)
    return c


OPTS_ALL = dict(mss=1460, sack=True, ts=True, ws=7)
OPTS_KEYS = ("tcpdiag.opts.client", "tcpdiag.opts.server", "tcpdiag.opts.client_wscale",
             "tcpdiag.opts.server_wscale", "tcpdiag.opts.wscale_used", "tcpdiag.opts.sack_used",
             "tcpdiag.opts.ts_used", "tcpdiag.opts.missing", "tcpdiag.opts.left_out_by_client",
             "tcpdiag.opts.left_out_by_server", "tcpdiag.opts.window_ceiling",
             "tcpdiag.opts.ceiling_throughput", "tcpdiag.opts.default_mss",
             "tcpdiag.opts.ts_stripped")


def opts_expect(client, server, cws, sws, used, missing, lo_c, lo_s, ceiling=False,
                default_mss=None, ts_stripped=None, at_ceiling="omit"):
    e = dict(zip(OPTS_KEYS, (
        client, server, cws, sws, used[0], used[1], used[2], missing, lo_c, lo_s,
        65535 if ceiling else None, OPTS_CEILING_RANGE if ceiling else None,
        default_mss, ts_stripped)))
    if at_ceiling != "omit":
        e["tcpdiag.opts.at_ceiling"] = at_ceiling
    return e


def build_opts(outdir):
    cap = Capture("crafted-opts")
    client, server = "192.0.2.30", "198.51.100.30"
    client6, server6 = "2001:db8:c1::30", "2001:db8:51::30"
    flows = []
    why_common = (" Capture point near the client: SYN -> SYN-ACK 20 ms, SYN-ACK -> ACK "
                  "0.2 ms, so the handshake RTT is 20.2 ms (20 ms counting only SYN -> "
                  "SYN-ACK); ceiling_throughput = 65535 / RTT = 3.24-3.28 MB/s, the range "
                  "takes both. " + WHY_DATA + WHY_SNAP)

    def paced(seg, share):
        return ("none", "Window scaling is not in use, but the server paces its %d-byte "
                "segments 2 ms apart, at %d %% of the 65535-byte ceiling (at_ceiling 'no'), "
                "so the missing option is not what holds the transfer back (missing-options "
                "needs at_ceiling 'yes'); the 30 segments take about 3 round trips and no "
                "other cause holds." % (seg, share))

    def one_burst(note):
        return ("none", "The 30 segments leave 0.12 ms apart, all in the first round trip, "
                "with window scaling in use: too short to be slow for any of the causes. %s"
                % note)

    # 40801: TCP_NOOPT client (IPv4)
    c = opts_flow(cap, 0.0, client, server, 40801, None, dict(mss=1460), seg=536, n_seg=30,
                  c_win=65535, s_win=64240, gap_ms=2.0, ts=False)
    flows.append(expect(c, "not-requested", vantage="near-client", overrides=opts_expect(
        "none", "mss", None, None, ("no", "no", "no"), "wscale,sack,ts",
        "mss,wscale,sack,ts", "wscale,sack,ts", ceiling=True, default_mss=536, at_ceiling="no"),
        why="TCP_NOOPT signature (a macOS app passing IPPROTO_TCP as the level with "
        "SO_KEEPALIVE's value sets TCP_NOOPT): the SYN has data offset 5 and no option, "
        "window 65535. A Linux server answers only what was offered: its SYN-ACK carries "
        "MSS 1460 alone (RFC 7323 §2.2 and §3.2: WS and TS may be sent in a SYN-ACK only "
        "when the SYN had them; Linux likewise echoes SACK_PERM only when offered). wscale/sack/ts are therefore all 'no' "
        "and missing; the client left out all four, the server the three it may not send. "
        "No MSS option from the client: the server must assume 536 for IPv4 (RFC 9293 "
        "§3.7.1, RFC 879), and it sends 536-byte segments. No window scaling: the client's "
        "65535 window is the ceiling. The server's 30 segments are paced 2 ms apart "
        "(268 kB/s, about 8 % of the 3.24 MB/s ceiling, under any averaging), so "
        "at_ceiling is 'no'. The SYN also gets expert tcpdiag.opts.noopt (not asserted "
        "here, the per-flow format cannot)." + why_common, cause=paced(536, 8)))

    # 40802: the same over IPv6
    c = opts_flow(cap, 0.0, client6, server6, 40802, None, dict(mss=1440), seg=1220, n_seg=30,
                  c_win=65535, s_win=64240, gap_ms=2.0, ts=False, s_mss=1440)
    flows.append(expect(c, "not-requested", vantage="near-client", overrides=opts_expect(
        "none", "mss", None, None, ("no", "no", "no"), "wscale,sack,ts",
        "mss,wscale,sack,ts", "wscale,sack,ts", ceiling=True, default_mss=1220, at_ceiling="no"),
        why="40801 over IPv6: SYN without options, SYN-ACK with MSS 1440 only. Without an MSS "
        "option the peer must assume the IPv6 minimum MTU 1280 (RFC 8200 §5) minus 60 bytes "
        "of IPv6 + TCP headers = 1220 (RFC 9293 §3.7.1 'the default IPv6 MSS'), and the "
        "server sends 1220-byte segments, 2 ms apart (610 kB/s, 19 % of the ceiling): "
        "at_ceiling 'no'." + why_common, cause=paced(1220, 19)))

    # 40803: the SYN-ACK drops window scaling; window-limited at the ceiling
    c = opts_flow(cap, 200.0, client, server, 40803, OPTS_ALL, dict(mss=1460, sack=True, ts=True),
                  seg=1448, n_seg=135, rounds=3, c_win=65535, s_win=64240)
    flows.append(expect(c, "not-requested", vantage="near-client", overrides=opts_expect(
        "mss,wscale,sack_perm,ts", "mss,sack_perm,ts", 7, None, ("no", "yes", "yes"), "wscale",
        "none", "wscale", ceiling=True, at_ceiling="yes"),
        why="Client SYN MSS 1460, SACK_PERM, TS, NOP, WS 7; the SYN-ACK carries MSS 1460, "
        "SACK_PERM and TS but no WS (a server with window scaling off, e.g. Linux "
        "net.ipv4.tcp_window_scaling=0). RFC 7323 §2.2: scaling is used only when both "
        "SYNs carry WS, so wscale_used 'no', missing 'wscale', and every window field is "
        "unscaled: the client advertises 65535. The server sends 3 rounds of 45 x 1448 "
        "bytes (65160 <= 65535 in flight), one round per 20.2 ms RTT, ACK-clocked: "
        "65160 B per RTT = 3.23 MB/s, 99 % of the 3.24 MB/s ceiling (measured per RTT "
        "or over the data span, which gives more), so at_ceiling 'yes' as long as "
        "throughput is measured over the data transfer, not over handshake + request "
        "+ close." + why_common,
        cause=("missing-options", "Window scaling is not in use (the SYN-ACK has no WS) and "
               "the transfer runs at the unscaled ceiling: 65160 bytes in flight per 20.2 ms "
               "round trip, 99 % of 65535 (at_ceiling 'yes'). The 64 KB window is also the "
               "flight limit (receive-window), which the missing scale explains, so "
               "missing-options comes first.")))

    # 40804: timestamps stripped from server segments after the 10th
    c = opts_flow(cap, 400.0, client, server, 40804, OPTS_ALL, OPTS_ALL, seg=1448, n_seg=30,
                  rounds=None, gap_ms=0.12, c_win=65535, s_win=64240, ts_strip_after=10)
    flows.append(expect(c, "not-requested", vantage="near-client", overrides=opts_expect(
        "mss,wscale,sack_perm,ts", "mss,wscale,sack_perm,ts", 7, 7, ("yes", "yes", "yes"),
        "none", "none", "none", ts_stripped="s2c"),
        why="All options on both SYNs (WS 7 each), so everything is used and nothing "
        "missing. The server's first 10 data segments carry NOP NOP TS; from the 11th on, "
        "its segments (data, FIN and the last ACK) carry no option at all (data offset 5, "
        "still 1448 bytes of payload): a middlebox (e.g. a proxy) on the path from the "
        "server to the capture point removes them. RFC 7323 §3.2: once TS is negotiated "
        "it MUST be sent in every non-RST segment, so ts_stripped is 's2c'; the client's segments keep "
        "TS. Window scaling works: no ceiling." + why_common,
        cause=one_burst("Stripped timestamps are not a slowness cause.")))

    # 40805: healthy control
    c = opts_flow(cap, 600.0, client, server, 40805, OPTS_ALL, OPTS_ALL, seg=1448, n_seg=30,
                  gap_ms=0.12, c_win=65535, s_win=64240)
    flows.append(expect(c, "not-requested", vantage="near-client", overrides=opts_expect(
        "mss,wscale,sack_perm,ts", "mss,wscale,sack_perm,ts", 7, 7, ("yes", "yes", "yes"),
        "none", "none", "none"),
        why="Control: Linux-like SYN and SYN-ACK with MSS 1460, SACK_PERM, TS, NOP, WS 7; "
        "every later segment carries TS. Nothing missing, nothing stripped, both MSS "
        "sent (no default_mss), scaling used (no ceiling)." + why_common,
        cause=one_burst("Nothing is missing.")))

    # 40806: TFO cookie request + MP_CAPABLE on the SYN, AccECN negotiated
    tfo_req = (34, b"")                                  # RFC 7413 §4.1.1: cookie request, length 2
    mp_capable = (30, b"\x01\x01")                       # RFC 8684 §3.1: subtype 0, version 1, flags H
    c = opts_flow(cap, 800.0, client, server, 40806, OPTS_ALL, OPTS_ALL, seg=1448, n_seg=30,
                  gap_ms=0.12, c_win=65535, s_win=64240, flags3=((1, 1, 1), (0, 1, 0)),
                  syn_extra=(tfo_req, ("NOP", None), ("NOP", None), mp_capable))
    flows.append(expect(c, "accecn", feedback="not-ect", vantage="near-client", overrides=opts_expect(
        "mss,wscale,sack_perm,ts,tfo,mptcp", "mss,wscale,sack_perm,ts", 7, 7,
        ("yes", "yes", "yes"), "none", "none", "none"),
        why="Option vocabulary: the SYN carries MSS, SACK_PERM, TS, NOP, WS 7, a TFO cookie "
        "request (kind 34, length 2, RFC 7413 §4.1.1), NOP NOP and MP_CAPABLE (kind 30, "
        "length 4, version 1, RFC 8684 §3.1), listed in the docs/fields.md order. The "
        "server does neither TFO nor MPTCP and ignores both (no TFO cookie; no "
        "MP_CAPABLE, so the connection is plain TCP, RFC 8684 §3.7), so the SYN-ACK has the four standard options. "
        "The handshake is AccECN (SYN (1,1,1), SYN-ACK (0,1,0): RFC 9768 Table 2, Not-ECT "
        "SYN); the AccECN option (kind 172) is sent only on the client's later ACKs, not "
        "on the SYN-ACK, so it appears in neither option list. Server data ECT(1)."
        + why_common, cause=one_burst("The ignored TFO and MPTCP options cost nothing.")))

    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    v4 = [f for f in flows if f["expect"]["tcpdiag.flow.client"] == client]
    share = "1 of %d connections sent SYNs without wscale, sack or ts" % len(v4)
    hosts = [
        {"client": client,
         "why": "Flows 40801 and 40803-40806 come from 192.0.2.30. Only 40801's SYN lacked "
                "wscale/sack_perm/ts (40803's SYN had all of them; its server dropped WS). "
                "The share uses the wording of docs/fields.md.",
         "expect": {"tcpdiag.host.conns": len(v4), "tcpdiag.host.opts_missing_conns": 1,
                    "tcpdiag.host.opts_share": share}},
        {"client": client6,
         "why": "One connection (40802), its SYN had no option at all.",
         "expect": {"tcpdiag.host.conns": 1, "tcpdiag.host.opts_missing_conns": 1,
                    "tcpdiag.host.opts_share":
                        "1 of 1 connections sent SYNs without wscale, sack or ts"}},
    ]
    write_expected(outdir, cap.name,
                   "Handshake options (tcpdiag.opts). Client 192.0.2.30 / 2001:db8:c1::30, "
                   "server 198.51.100.30:443 / [2001:db8:51::30]:443, capture point near the "
                   "client. 40801 TCP_NOOPT SYN (no options) over IPv4, 40802 the same over "
                   "IPv6, 40803 SYN-ACK without window scaling (window-limited at 65535), "
                   "40804 server timestamps stripped after 10 data segments, 40805 healthy "
                   "control, 40806 TFO cookie request + MP_CAPABLE on an AccECN SYN.",
                   flows, flow_count=len(flows), hosts=hosts)
    return flows

# --------------------------------------------------------------------------
# 9. bytes in flight (tcpdiag.flight): ACK-clocked downloads, simulated

SEG = 1460 - 12             # MSS 1460 minus the timestamp option
ONE_WAY_NS = 10000000       # each way, no queue anywhere: every round trip is 20 ms
DELACK_NS = 500000          # a lone in-order segment is ACKed 0.5 ms after it arrived
MIB_WINDOW = 8192           # window field << 7 = 1 MiB offered by the client


class AckClock:
    """One download, event by event, in nanoseconds: the server sends, the
    client receives and ACKs, each ONE_WAY_NS from the other.

    Time grid (u ns): the server's NIC sends a frame every 2u, on even
    multiples of u; the client answers u after an arrival (or DELACK_NS + u for
    a lone segment), so ACKs reach the server on odd multiples of u and no ACK
    ever shares an instant with a data segment, at either end.  The server
    answers an ACK on the next NIC slot (u later when the NIC is idle).

    cc: iw (segments), ssthresh, ai (additive increase above ssthresh, else a
    flat cwnd), after_loss(cwnd) -> (cwnd, ssthresh).  Recovery: fast
    retransmit on the 3rd SACKed duplicate ACK, nothing new until the
    retransmission is acknowledged, then the reduced cwnd.  drop(i, flight):
    whether new segment i, sent with `flight` segments outstanding, is lost
    (at most one loss until it is repaired).  app: (bytes of each write, idle
    ns after everything is acknowledged), or None for a bulk transfer of segs
    full segments; a write that is no multiple of SEG ends in a short segment.

    Segmentation offload: tso, the most segments the server hands over as one
    packet (TSO/GSO/LSO; never past the end of a write, as a short segment can
    only be a packet's last); the NIC puts its segments on the wire 2u apart.
    pace: (ns, segments per packet, cycled): the server sends one packet per
    tick instead of on ACKs.  gro: the client's NIC interrupts every gro frame
    times (2u each) and hands over each run of consecutive segments that came
    in since as one merged packet (GRO/LRO), so the client ACKs it at once."""

    def __init__(self, segs, rwnd, cc, u=1000, drop=None, app=None, tso=1, pace=None,
                 gro=None):
        self.u, self.rwnd, self.drop, self.app = u, rwnd, drop, app
        self.tso, self.pace, self.gro = tso, pace, gro
        self.cwnd, self.ssthresh = cc["iw"], cc.get("ssthresh", float("inf"))
        self.ai, self.after_loss = cc.get("ai", False), cc.get("after_loss")
        self.queued = list(app[0]) if app else [segs * SEG]
        self.starts, self.write_ends = [0], []  # byte offset of each segment; segment ends of writes
        self.avail = self.writes = 0
        self.take_write()
        self.una = self.nxt = self.ai_count = 0
        self.recover = self.lost = self.reduced = None
        self.nic_free = 0
        self.rcv, self.ooo, self.pending, self.token = 0, set(), 0, 0
        self.nic_rx = []            # (segment, retx) landed at the client since its last interrupt
        self.events, self.n = [], 0
        # ("data", sent, i, retx, arrived, segments) / ("ack", sent, arrives, ack, sack) /
        # ("rx", handed over, i, retx, True, segments): a GRO packet as the client sees it
        self.log = []
        self.max_lag = 0            # longest wait of a segment after the event that released it
        self.recovered_at = []      # index of the first new segment after each repair

    def push(self, t, kind, arg):
        self.n += 1
        heapq.heappush(self.events, (t, self.n, kind, arg))

    def run(self):
        while self.events:
            t, _, kind, arg = heapq.heappop(self.events)
            getattr(self, kind)(t, arg)

    def nbytes(self, rec):
        """Payload bytes of a data or rx log record."""
        return self.starts[rec[2] + rec[5]] - self.starts[rec[2]]

    def take_write(self):
        """The application's next write joins the send queue as whole segments."""
        n = self.queued.pop(0)
        for _ in range(-(-n // SEG)):
            self.starts.append(self.starts[-1] + min(SEG, n))
            n -= SEG
        self.avail = len(self.starts) - 1
        self.write_ends.append(self.avail)
        self.writes += 1

    # -- server ------------------------------------------------------------
    def send(self, now, i, n=1, retx=False):
        slot = 2 * self.u
        dep = max(self.nic_free, (now // slot + 1) * slot)
        self.nic_free = dep + slot * n
        self.max_lag = max(self.max_lag, dep - now)
        arrives = [retx or not self.dropped(i + j) for j in range(n)]
        for j in range(n):
            if arrives[j]:
                self.push(dep + ONE_WAY_NS + slot * j, "land", (i + j, retx))
        self.log.append(("data", dep, i, retx, any(arrives), n))

    def dropped(self, i):
        if self.lost is None and self.drop and self.drop(i, i + 1 - self.una):
            self.lost = i
        return self.lost == i

    def allowed(self):
        """How many new segments cwnd, the window and the data allow now."""
        n = 0
        while (self.recover is None and self.nxt + n < self.avail
               and self.nxt + n - self.una < self.cwnd
               and self.starts[self.nxt + n + 1] - self.starts[self.una] <= self.rwnd):
            n += 1
        return n

    def burst(self, now, n):
        """n new segments leave now, in packets of at most tso segments."""
        end = self.nxt + n
        while self.nxt < end:
            write_end = self.write_ends[bisect.bisect_right(self.write_ends, self.nxt)]
            size = min(self.tso, end - self.nxt, write_end - self.nxt)
            self.send(now, self.nxt, size)
            self.nxt += size

    def start(self, now, _):
        if self.pace:
            self.tick(now, 0)
        else:
            self.pump(now)

    def pump(self, now, _=None):
        if not self.pace:
            self.burst(now, self.allowed())

    def tick(self, now, k):
        self.burst(now, min(self.allowed(), self.pace[1][k % len(self.pace[1])]))
        if self.nxt < self.avail:
            self.push(now + self.pace[0], "tick", k + 1)

    def grow(self, acked):
        if self.cwnd < self.ssthresh:
            self.cwnd += acked
        elif self.ai:
            self.ai_count += acked
            while self.ai_count >= self.cwnd:
                self.ai_count -= self.cwnd
                self.cwnd += 1

    def ack_in(self, now, ack):
        a, sack = ack
        if a > self.una:
            acked, self.una = a - self.una, a
            if self.recover is not None:
                assert a >= self.recover, "a partial ACK: the flows repair one loss at a time"
                (self.cwnd, self.ssthresh), self.recover, self.lost = self.reduced, None, None
                self.ai_count = 0
                self.recovered_at.append(self.nxt)
            else:
                self.grow(acked)
            self.pump(now)
            if self.app and self.una == self.avail and self.queued:
                self.push(now + self.app[1], "write", None)
        elif sack and self.recover is None and sack[1] - sack[0] >= 3:
            # RFC 6675 IsLost: more than 2 MSS SACKed above the hole (each
            # out-of-order segment alone draws a duplicate ACK: the 3rd one)
            self.recover, self.reduced = self.nxt, self.after_loss(self.cwnd)
            self.send(now, self.una, retx=True)

    def write(self, now, _):
        self.take_write()
        self.pump(now)

    # -- client ------------------------------------------------------------
    def land(self, now, seg):
        """A segment reaches the client's NIC."""
        if not self.gro:
            self.arrive(now, (seg[0], 1))
            return
        self.nic_rx.append(seg)
        if len(self.nic_rx) == 1:
            period = 2 * self.u * self.gro
            self.push(-(-now // period) * period, "interrupt", None)

    def interrupt(self, now, _):
        runs = []
        for i, retx in self.nic_rx:
            if runs and runs[-1][0] + runs[-1][2] == i:
                runs[-1][1] |= retx
                runs[-1][2] += 1
            else:
                runs.append([i, retx, 1])
        self.nic_rx = []
        for i, retx, n in runs:
            self.log.append(("rx", now, i, retx, True, n))
            self.arrive(now, (i, n))

    def arrive(self, now, pkt):
        i, n = pkt
        assert i >= self.rcv, "no segment arrives twice"
        if i > self.rcv:                       # beyond the hole: SACK it at once
            self.ooo.update(range(i, i + n))
            self.ack_out(now + self.u, (min(self.ooo), max(self.ooo) + 1))
            return
        filled = bool(self.ooo)
        self.rcv += n
        while self.rcv in self.ooo:
            self.ooo.remove(self.rcv)
            self.rcv += 1
        self.pending += n
        if filled or self.pending >= 2:
            self.ack_out(now + self.u, None)
        else:
            self.token += 1
            self.push(now + DELACK_NS + self.u, "delack", self.token)

    def delack(self, now, token):
        if token == self.token and self.pending:
            self.ack_out(now, None)

    def ack_out(self, now, sack):
        assert sack is None or sack[1] - sack[0] == len(self.ooo), "one hole at a time"
        self.pending = 0
        self.token += 1
        self.log.append(("ack", now, now + ONE_WAY_NS, self.rcv, sack))
        self.push(now + ONE_WAY_NS, "ack_in", (self.rcv, sack))


def seen_at(rec, at_sender):
    """When an AckClock log record passes the server (at_sender) or the client, in ns."""
    if rec[0] == "data":
        return rec[1] + (0 if at_sender else ONE_WAY_NS)
    return rec[2] if at_sender and rec[0] == "ack" else rec[1]


def captured(sim, at_sender):
    """The log records the capture point sees: a lost segment never reaches the client;
    a client with GRO sees the merged packets its NIC hands over, not the segments."""
    if at_sender:
        return [r for r in sim.log if r[0] != "rx"]
    assert sim.gro or all(r[5] == 1 for r in sim.log if r[0] == "data"), \
        "TSO packets reach the client as segments: capture them at the sender"
    return [r for r in sim.log if r[0] == "ack" or r[0] == ("rx" if sim.gro else "data") and r[4]]


def data_phase_timestamps(c, sim):
    """(TSval, TSecr) of each AckClock log record, as 1 ms clocks would stamp them
    (RFC 7323): each side's TSval is its send time in ms, continuing its handshake
    values, and echoes the newest TSval that had *reached* it when it sent. The
    echo is what the sender knew, whatever the capture point: at the client the
    data echoes an ACK sent a round trip earlier, not the one just captured."""
    t0 = min(r[1] for r in sim.log)
    handshake = dict(c.ts)
    base = {"c": c.ts["c"] + 1, "s": c.ts["s"] + 1}
    clock = lambda d, t: base[d] + (t - t0) // 1000000
    acks = sorted((r[2], clock("c", r[1])) for r in sim.log if r[0] == "ack")    # reach the server
    datas = sorted((r[1] + ONE_WAY_NS, clock("s", r[1])) for r in sim.log if r[0] == "data" and r[4])

    def newest(arrivals, t, before):
        i = bisect.bisect_right(arrivals, (t, float("inf")))
        return arrivals[i - 1][1] if i else before

    # a GRO packet keeps the header of its first segment
    carrier = {(r[2] + j, r[3]): r for r in sim.log if r[0] == "data" for j in range(r[5])}

    def stamp(rec):
        if rec[0] == "rx":
            return stamp(carrier[rec[2], rec[3]])
        if rec[0] == "data":
            return clock("s", rec[1]), newest(acks, rec[1], handshake["c"])
        return clock("c", rec[1]), newest(datas, rec[1], handshake["s"])
    c.ts["c"] = clock("c", max(r[1] for r in sim.log)) + 1      # close() continues the clocks
    c.ts["s"] = clock("s", max(r[1] for r in sim.log)) + 1
    return stamp


def flight_flow(cap, t0, port, at_sender, segs, cc, window=MIB_WINDOW, syn_window=None,
                hosts=("192.0.2.40", "198.51.100.40"), ip_len0=False, **kw):
    """A download on `port` whose data phase is an AckClock (segs, cc, kw) against
    the client's window, captured at the server (at_sender) or at the client.
    ip_len0: packets longer than one segment show IPv4 total length 0, as a
    capture on a TSO sender can (the NIC fills it in).

    Handshake at the server: SYN arrives, SYN-ACK 0.1 ms later, the client's ACK
    20 ms after that.  At the client: SYN, SYN-ACK 20 ms later, ACK 0.1 ms
    after.  The client sends no payload, its window field is `window` (scale
    7) after the SYN.  Returns the Conn, the AckClock and, per (segment index,
    retransmission), the index of its record (to name frame numbers)."""
    c = Conn(cap, t0, hosts[0], hosts[1], port)
    c.syn(window=syn_window)
    c.synack(dt=0.1 if at_sender else 20.0)
    c.pure_ack("c", dt=20.0 if at_sender else 0.1, window=window)
    sim = AckClock(segs, window << 7, cc, **kw)
    # the server starts on the handshake ACK, ONE_WAY_NS after the client sent it
    sim.push(c.t * 1000 + (0 if at_sender else ONE_WAY_NS), "start", None)
    sim.run()
    assert sim.max_lag <= 100000, "a segment left more than 0.1 ms after its ACK"
    stamp = data_phase_timestamps(c, sim)
    frames = {}
    for rec in sorted(captured(sim, at_sender), key=lambda r: seen_at(r, at_sender)):
        dt = (seen_at(rec, at_sender) // 1000 - c.t) / 1000.0
        ts = [("NOP", None), ("NOP", None), ("Timestamp", stamp(rec))]
        if rec[0] != "ack":
            frames[rec[2], rec[3]] = len(cap.records)
            n = sim.nbytes(rec)
            c.emit("s", ACK, n=n, seq=c.s_isn + 1 + sim.starts[rec[2]], dt=dt, opts=ts,
                   ip_len0=ip_len0 and n > SEG)
        else:
            sack = rec[4] and [("NOP", None), ("NOP", None),
                               ("SAck", tuple(c.s_isn + 1 + sim.starts[x] for x in rec[4]))]
            c.emit("c", ACK, ack=c.s_isn + 1 + sim.starts[rec[3]], dt=dt, window=window,
                   opts=ts + (sack or []))
    c.close(c_window=window)
    return c, sim, frames


# The transfers are sized to keep crafted-flight.pcap near 1 MB (see README).
ILLUMOS_SEGS = 700          # 1 MB: 10 + 20 + 40 segments, then 5 per round
RWND_SEGS = 660             # 60 rounds of 11 segments
RENO_SEGS = 2017            # three 20 -> 40 cycles, the last repair ends it
HEALTHY_SEGS = 993          # the last round's flight just passes 512 KiB
ILLUMOS_CC = dict(iw=10, after_loss=lambda cwnd: (5, 5))      # then flat: no increase
RENO_CC = dict(iw=10, ssthresh=20, ai=True, after_loss=lambda cwnd: (cwnd // 2, cwnd // 2))

FLIGHT_WHY = (" Handshake: MSS 1460, SACK_PERM, TS and WS 7 on both SYNs, so every data "
              "segment carries 1448 bytes (the MSS of the flight fields). Each way takes "
              "exactly 10 ms with no queue (20 ms round trip). The client sends no payload; "
              "it ACKs every second in-order segment u after it arrives, a lone one "
              "0.5 ms + u after it arrived when nothing follows, and each out-of-order "
              "segment (and the one that fills the hole) u after it arrives, with a SACK "
              "block while a hole is open. The server's NIC sends a frame every 2u, on the "
              "first free slot after the ACK (or write) that allows it: every segment "
              "leaves within 0.1 ms of that ACK (at most %g us here). Data passes on even "
              "multiples of u and ACKs on odd ones, so no ACK coincides with a data "
              "segment and an ACK counts for the flight the same way at the server as, "
              "20 ms later, at the client. Timestamps run on 1 ms clocks and each side "
              "echoes the newest TSval that had reached it when it sent (RFC 7323), so at "
              "the client a data segment echoes the ACK that released it, a round trip "
              "earlier. Here u = %g us. " + WHY_DATA + WHY_SNAP)
AT_SERVER = (" Captured at the server: SYN arrives, SYN-ACK leaves 0.1 ms later, the "
             "client's ACK arrives 20 ms after that (vantage near-server, seen_from sender).")
AT_CLIENT = (" Captured at the client: SYN leaves, SYN-ACK arrives 20 ms later, the ACK "
             "leaves 0.1 ms after (vantage near-client, seen_from receiver).")


def flight_expect(c, sim, at_sender, why, cause, limit, rwnd, plateau=None, onset=None,
                  start_frame=None, extra=None):
    """The expected record of one flight flow: the flow fields, then tcpdiag.flight.
    A plateau is held by what limits the flow (the window or the sender itself)."""
    flight = {
        "tcpdiag.flight.dir": "s2c",
        "tcpdiag.flight.limit": limit,
        "tcpdiag.flight.seen_from": "sender" if at_sender else "receiver",
        "tcpdiag.flight.rwnd": rwnd,
        "tcpdiag.flight.plateau": plateau,
        "tcpdiag.flight.plateau_mss": plateau / SEG if plateau else None,
        "tcpdiag.flight.plateau_onset": onset,
        "tcpdiag.flight.plateau_limit": limit if plateau else None,
        "tcpdiag.flight.plateau_start": start_frame,
        # docs/fields.md: smallest window offered on the plateau minus the plateau
        "tcpdiag.flight.headroom": rwnd - plateau if plateau else None,
    }
    flight.update(extra or {})
    return sim_expect(c, at_sender, why, FLIGHT_WHY % (sim.max_lag / 1000.0, sim.u / 1000.0),
                      flight, cause)


def sim_expect(c, at_sender, why, model, fields, cause):
    """The expected record of a simulated download: the flow fields, then `fields`;
    the why tells where it was captured and how the simulation works (model)."""
    why += (AT_SERVER if at_sender else AT_CLIENT) + model
    return expect(c, "not-requested", why, cause=cause,
                  vantage="near-server" if at_sender else "near-client", overrides=fields)


def data_phase(sim, at_sender):
    """The captured records, and the data phase as captured: first data frame, last ACK (ns)."""
    recs = captured(sim, at_sender)
    t = lambda r: seen_at(r, at_sender)
    return recs, min(t(r) for r in recs if r[0] != "ack"), max(t(r) for r in recs if r[0] == "ack")


def active_share(sim, at_sender, start):
    """Percent of the data phase that lies from new segment `start` on."""
    recs, t0, t_end = data_phase(sim, at_sender)
    t_start = min(seen_at(r, at_sender) for r in recs if r[0] == "data" and r[2] == start)
    return 100.0 * (t_end - t_start) / (t_end - t0)


def data_rate(sim, at_sender):
    """Payload bytes per second over the data phase as captured."""
    recs, t0, t_end = data_phase(sim, at_sender)
    return sum(sim.nbytes(r) for r in recs if r[0] != "ack") * 1e9 / (t_end - t0)


def illumos_flow(cap, t0, port, at_sender):
    """Issue 6: after one fast retransmit the sender never has more than 5 MSS out."""
    c, sim, frames = flight_flow(cap, t0, port, at_sender, ILLUMOS_SEGS, ILLUMOS_CC,
                                 drop=lambda i, flight: i == 30)    # round 3's first segment
    start = sim.recovered_at[0]
    share = active_share(sim, at_sender, start)
    assert share >= 95.0
    lost = ("segment 31 (frame %d) is sent once and never reaches the client"
            % cap.frame_number(frames[30, False]) if at_sender else
            "segment 31 is lost before the client (absent here)")
    why = ("The illumos burst-limited flight of tcpdiag issue 6. The server sends %d "
           "segments (%d bytes) against a 1 MiB window (window field 8192, shift 7, on "
           "every ACK). Slow start from 10 segments: each ACK of two segments releases "
           "four, so rounds carry 10, 20 and 40 segments (flight 14480, 28960, 57920). "
           "In round 3 %s: the other 39 segments of the round draw SACKed "
           "duplicate ACKs and nothing new; on the third one the server retransmits it "
           "(frame %d). The ACK of the retransmission covers the 40 segments; from then "
           "on cwnd is 5 and never grows: every ACK releases exactly as many segments as "
           "it acknowledged, so each round has exactly 5 x 1448 = 7240 bytes in flight "
           "(the client ACKs them 2 + 2 + 1, the lone one after 0.5 ms). The plateau "
           "starts with segment %d (frame %d), the first new data after the repair, and "
           "lasts to the end (%d more segments, no further loss), %.1f %% of the time from "
           "the first data segment to the last ACK (by construction; sender_share asks "
           "for at least 90). plateau_mss = 7240 / 1448 = 5.0, onset retransmission, "
           "headroom 1048576 - 7240 = 1041336. No Linux congestion control stays flat "
           "below the window with no loss: limit sender."
           % (sim.nxt, sim.nxt * SEG, lost, cap.frame_number(frames[30, True]), start + 1,
              cap.frame_number(frames[start, False]), sim.nxt - start, share))
    cause = ("sender-limited", "After its one retransmission the sender holds the flight "
             "flat at 5 MSS for the rest of the transfer while the client offers 1 MiB and "
             "nothing more is lost (flight limit sender).")
    return flight_expect(c, sim, at_sender, why, cause, "sender", MIB_WINDOW << 7, 5 * SEG,
                         "retransmission", cap.frame_number(frames[start, False]),
                         {"tcpdiag.flight.sender_share": {"min": 90}})


def rwnd_flow(cap, t0, port):
    """A receiver offering 16 KiB: the flight sits at the window from the start."""
    c, sim, frames = flight_flow(cap, t0, port, True, RWND_SEGS, dict(iw=16), window=128,
                                 syn_window=16384)
    why = ("A receiver with a 16 KiB buffer: its SYN offers 16384 and every later ACK window "
           "field 128 << 7 = 16384. The server (initial cwnd 16, so the window binds from the "
           "first round, and cwnd keeps growing in slow start) keeps as many segments out as "
           "fit: 11 x 1448 = 15928 <= 16384 < 12 x 1448 = 17376. %d segments, 11 per round "
           "(%d x 11; the client ACKs 2 x 5 + 1, the lone one after 0.5 ms; the last round "
           "may show fewer as the data runs out), no loss: a "
           "flat plateau at 15928 bytes = 11.0 MSS from the first data segment (frame %d) to "
           "the end, onset start, headroom 16384 - 15928 = 456. Flat at the window is the "
           "receiver's doing: limit rwnd, not sender."
           % (sim.nxt, sim.nxt // 11, cap.frame_number(frames[0, False])))
    cause = ("receive-window", "Window scaling is in use, and the flight sits at the "
             "client's 16 KiB offered window from the first round to the end (flight limit "
             "rwnd).")
    return flight_expect(c, sim, True, why, cause, "rwnd", 16384, 11 * SEG, "start",
                         cap.frame_number(frames[0, False]))


def reno_flow(cap, t0, port):
    """Additive increase and halving: a sawtooth, never flat."""
    c, sim, frames = flight_flow(cap, t0, port, True, RENO_SEGS, RENO_CC,
                                 drop=lambda i, flight: flight >= 40)
    retx = ", ".join(str(cap.frame_number(v)) for k, v in sorted(frames.items()) if k[1])
    why = ("Reno against a 1 MiB window: slow start 10 -> 20 segments (ssthresh 20), then "
           "additive increase of one segment per round (cwnd += 1 per cwnd segments "
           "acknowledged) up to 40. The first segment sent with 40 segments outstanding is "
           "lost; the rest of the round draws SACKed duplicate ACKs, the third one a fast "
           "retransmit, nothing new until the retransmission is acknowledged, then cwnd "
           "and ssthresh are halved to 20 and the server sends 20 segments at once. %d "
           "losses (retransmissions in frames %s), %d segments; the transfer ends with the "
           "last repair. Round flights climb one segment (1448 bytes) per round from 20 to "
           "40: any 8 consecutive rounds span 7 segments, more than max(1 MSS, 10 %%) of "
           "at most 41 segments (4.1 segments), so there is no plateau: limit cwnd."
           % (len(sim.recovered_at), retx, sim.nxt))
    assert len(sim.recovered_at) >= 2
    cause = ("path-loss", "%d loss recoveries, each a fast retransmit long after the previous "
             "repair ended, each cutting cwnd from 40 to 20 segments (the flight after is 0.5 "
             "of the flight before: loss-like), with the congestion window as the flight limit "
             "and no ECN. The flight never drops to 4 MSS (no window collapse), and no other "
             "flow of 198.51.100.40 here uses offload, so nothing higher in the order holds."
             % len(sim.recovered_at))
    return flight_expect(c, sim, True, why, cause, "cwnd", MIB_WINDOW << 7)


def app_flow(cap, t0, port):
    """Bursts from the application with idle time between them."""
    c, sim, frames = flight_flow(cap, t0, port, True, 0, dict(iw=16), app=([16 * SEG] * 30, 200000000))
    why = ("An application that writes 16 segments (23168 bytes) at a time: the server "
           "(initial cwnd 16, no slow-start restart) sends each write at once, the client "
           "ACKs it in 8 ACKs within one round trip, then nothing is outstanding and the "
           "server is silent for 200 ms, %d times (%d segments), 1 MiB window. The flight "
           "never reaches cwnd or the window for want of data: limit app, no plateau "
           "(every round follows an idle period)." % (sim.writes, sim.nxt))
    cause = ("app-limited", "Bursts of one write each, separated by 200 ms of idle time with "
             "nothing outstanding (flight limit app); no loss and no other flow of "
             "198.51.100.40 here uses offload, so nothing higher in the order holds.")
    return flight_expect(c, sim, True, why, cause, "app", MIB_WINDOW << 7)


def healthy_flow(cap, t0, port):
    """Slow start without loss until the flight passes 512 KiB, then the end."""
    c, sim, frames = flight_flow(cap, t0, port, True, HEALTHY_SEGS, dict(iw=10), u=250)
    why = ("Healthy slow start against a 1 MiB window: 10, 20, 40, 80, 160 and 320 "
           "segments per round (each ACK of two segments releases four), then the last "
           "%d segments, whose flight ends at %d x 1448 = %d bytes >= 512 KiB; no loss, "
           "%d segments in all. The server's NIC is faster here (u = 0.25 us) so that the "
           "320-segment round still leaves within 0.1 ms of its ACKs; at microsecond "
           "resolution an ACK and a data segment can then share a timestamp, and the frame "
           "order is the order in which they passed the server. Growing every round, never "
           "flat: limit cwnd, no plateau, never sender."
           % (sim.nxt - 630, sim.nxt - 630, (sim.nxt - 630) * SEG, sim.nxt))
    cause = ("none", "Unchecked slow start: no loss, no ECN, the window never binds, and no "
             "other flow of 198.51.100.40 here uses offload: none of the causes holds.")
    return flight_expect(c, sim, True, why, cause, "cwnd", MIB_WINDOW << 7)


def after_last(cap):
    """The next flow starts 100 ms after the last packet so far (ms from BASE_EPOCH)."""
    return max(r[0] for r in cap.records) / 1000.0 - BASE_EPOCH * 1000 + 100.0


def build_flight(outdir):
    cap = Capture("crafted-flight")
    flows, t0 = [], 0.0
    for make in (lambda t: illumos_flow(cap, t, 40901, True),
                 lambda t: illumos_flow(cap, t, 40902, False),
                 lambda t: rwnd_flow(cap, t, 40903),
                 lambda t: reno_flow(cap, t, 40904),
                 lambda t: app_flow(cap, t, 40905),
                 lambda t: healthy_flow(cap, t, 40906)):
        flows.append(make(t0))
        t0 = after_last(cap)
    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    write_expected(outdir, cap.name,
                   "Bytes in flight (tcpdiag.flight): six downloads from 198.51.100.40:443 to "
                   "192.0.2.40, one after the other, each on its own port, simulated ACK by "
                   "ACK. 40901 the illumos burst-limited flight of issue 6 (5 MSS after one "
                   "fast retransmit, 1 MiB window) captured at the server, 40902 the same "
                   "captured at the client, 40903 flat at a 16 KiB receive window, 40904 a "
                   "Reno sawtooth, 40905 application bursts with idle gaps, 40906 healthy "
                   "slow start to 512 KiB.", flows, flow_count=len(flows))
    return flows


# --------------------------------------------------------------------------
# 10. segmentation offload (tcpdiag.offload): TSO/GSO/LSO at the sender, GRO at
# the receiver, as the capturing host shows them; simulated with AckClock

OFFLOAD_HOSTS = ("192.0.2.50", "198.51.100.50")
LSO_SEGS = 45               # 64 KB offload limit: 45 x 1448 = 65160 bytes per packet
GRO_FRAMES = 20             # the client's NIC interrupts every 20 frame times (rx-usecs)
LSO_ILLUMOS_SEGS = 540      # 110 segments of slow start and repair, then 86 rounds of 5
LINUX_WRITES = (100000, 30000, 46 * SEG, 150000, 20000, 90000)  # 456608 bytes, 5 short tails
PACE_SEGS = (4, 3, 4, 4, 3)  # one GSO packet per ms: 18 x 1448 bytes per 5 ms = 5.2 MB/s

OFFLOAD_WHY = (" Handshake: MSS 1460, SACK_PERM, TS and WS 7 on both SYNs, so a full segment "
               "carries 1448 bytes (the MSS of the offload fields); the client offers 1 MiB "
               "(window field 8192, shift 7) and sends no payload. Each way takes exactly "
               "10 ms with no queue (20 ms round trip). The server hands its stack's packets to "
               "the NIC on a grid of 2u and the NIC puts their segments on the wire 2u apart "
               "(u = %g us here); a frame is written as the capturing host sees it, so a "
               "super-packet is one frame whose IP total length is its real length%s. "
               "A client without GRO ACKs every second segment u after it arrives, a lone one "
               "0.5 ms + u after; out-of-order segments draw a SACK at once and more than "
               "2 MSS SACKed above a hole a fast retransmit (RFC 6675). A client with GRO takes "
               "interrupts every %d frame times (2u each, on a grid fixed to the capture "
               "clock, so a flow's start time decides where its bursts are cut) and hands each "
               "run of consecutive segments that came in since to TCP as one merged packet "
               "(so at most %d segments), which it ACKs at once (more than one segment) u "
               "later. Timestamps run on "
               "1 ms clocks (RFC 7323); a merged packet keeps the first segment's header. "
               + WHY_DATA + WHY_SNAP)


def offload_sizes(sim, at_sender):
    """Payload bytes of each data frame the capture point sees, in frame order."""
    recs = sorted(captured(sim, at_sender), key=lambda r: seen_at(r, at_sender))
    return [sim.nbytes(r) for r in recs if r[0] != "ack"]


def seg_runs(sizes):
    """Sizes in segments, runs compressed: '10 18 2 36 4 40 1 5x86' (+r: a short tail);
    frames per size where that says more briefly: '3 (50 frames), 4 (75 frames)'."""
    name = lambda x: "%d" % (x // SEG) if x % SEG == 0 else "%d+%d" % (x // SEG, x % SEG)
    runs = [(name(x), len(list(g))) for x, g in itertools.groupby(sizes)]
    if len(runs) > 40:
        return ", ".join("%s (%d frames)" % (name(x), sizes.count(x)) for x in sorted(set(sizes)))
    return " ".join(w if n == 1 else "%sx%d" % (w, n) for w, n in runs)


def offload_expect(c, sim, at_sender, why, verdict, cap=None, cap_start=None, ip_len0=False):
    """One offload flow: its verdict, its data rate as captured, and the function that
    makes its expected record (the flow fields, then tcpdiag.offload restated from the
    frames as written) from its cause, which depends on the sender's other flows."""
    sizes = offload_sizes(sim, at_sender)
    big = [x for x in sizes if x > SEG]
    share = 100.0 * sum(big) / sum(sizes)
    fields = {
        "tcpdiag.offload.verdict": verdict,
        # docs/fields.md: the largest segment at or below the announced MSS (absent when none)
        "tcpdiag.offload.mss": SEG if min(sizes) <= SEG else None,
        "tcpdiag.offload.max": max(sizes),
        "tcpdiag.offload.super_packets": len(big),
        # rounding, and whether the one retransmission (flow 1) counts
        "tcpdiag.offload.super_share": {"min": round(max(share - 0.5, 0), 1),
                                        "max": round(min(share + 0.5, 100), 1)},
        "tcpdiag.offload.ip_len_zero": len(big) if ip_len0 else 0,
        "tcpdiag.offload.cap": cap,
        "tcpdiag.offload.cap_mss": cap // SEG if cap else None,
        "tcpdiag.offload.cap_start": cap_start,
    }
    why += (" Data frames as captured, in segments of 1448 (+ a short tail): %s. Largest "
            "payload %d, %d frames above 1448 carrying %.2f %% of the %d payload bytes."
            % (seg_runs(sizes), max(sizes), len(big), share, sum(sizes)))
    model = OFFLOAD_WHY % (sim.u / 1000.0, " except where said otherwise" if ip_len0 else "",
                           sim.gro or GRO_FRAMES, sim.gro or GRO_FRAMES)
    return verdict, data_rate(sim, at_sender), lambda cause: sim_expect(c, at_sender, why, model,
                                                                        fields, cause)


def offload_flow(cap, t0, port, at_sender, segs, cc, **kw):
    return flight_flow(cap, t0, port, at_sender, segs, cc, hosts=OFFLOAD_HOSTS, **kw)


def lso_capped_flow(cap, t0, port):
    """Issue 5 + 6: illumos LSO; after a fast retransmit every burst is the whole 5 MSS flight."""
    c, sim, frames = offload_flow(cap, t0, port, True, LSO_ILLUMOS_SEGS, ILLUMOS_CC, tso=LSO_SEGS,
                                  gro=GRO_FRAMES, drop=lambda i, flight: i == 50)
    start = sim.recovered_at[0]
    sizes = offload_sizes(sim, True)
    first = sizes.index(5 * SEG, sizes.index(SEG))      # after the lone retransmission
    assert set(sizes[first:]) == {5 * SEG} and len(sizes) - first >= 80
    assert max(sizes[:first]) >= 40960 and min(sizes[:first - 1]) == 2 * SEG
    cap_start = cap.frame_number(frames[start, False])
    lost_in = next(sim.nbytes(r) for r in sim.log if r[0] == "data" and r[2] <= 50 < r[2] + r[5])
    why = ("An illumos sender with LSO (tcpdiag issues 5 and 6), captured on the sender: the "
           "stack hands the NIC all that cwnd allows at once, up to 45 segments (64 KB) per "
           "packet, and the client's GRO ACKs each merged run at once. Slow start from 10 "
           "segments with each ACK releasing twice what it acknowledged; the client's interrupt "
           "grid (40 us) cuts the bursts unevenly, so the slow-start packets hold %s segments "
           "(up to %d bytes). Segment 51 (inside the %d-segment packet) is lost on the wire; "
           "the SACK for the segments after it covers more than 2 MSS, so the server "
           "retransmits it alone (frame %d), sends nothing new until that is acknowledged, "
           "then keeps cwnd at 5 for good. From segment %d on (frame %d, the first new data "
           "after the repair) "
           "every burst is one 7240-byte packet (5 x 1448), one per round trip, the whole "
           "allowed flight (the flight plateau of issue 6 is 7240 too), %d times to the end: "
           "super-packets never exceed 7240 from frame %d on, and %d of the %d sit exactly "
           "there. The cap (k = 5) is below 60 KB. By the rate rule alone it would be "
           "normal (1 ms of this flow's rate, 7240 bytes per 20 ms, is 362 bytes, and "
           "7240 >= max(2 MSS, 362) = 2896), but it equals the flat flight plateau (every "
           "burst is the whole allowed flight, the illumos case): capped, cap 7240, cap_mss 5, "
           "cap_start %d. 1 MiB window: the window never binds."
           % (seg_runs(sizes[:first - 1]), max(sizes[:first]), lost_in // SEG,
              cap.frame_number(frames[50, True]), start + 1, cap_start, len(sizes) - first,
              cap_start, len(sizes) - first, sum(x > SEG for x in sizes), cap_start))
    return offload_expect(c, sim, True, why, "capped", 5 * SEG, cap_start)


def tso_iplen0_flow(cap, t0, port):
    """A Linux TSO sender captured by tcpdump on itself: IP total length 0 on super-packets."""
    c, sim, _ = offload_flow(cap, t0, port, True, 0, dict(iw=10), tso=LSO_SEGS, gro=GRO_FRAMES,
                             u=250, app=(LINUX_WRITES, 0), ip_len0=True)
    sizes = offload_sizes(sim, True)
    assert max(sizes) == LSO_SEGS * SEG and sum(sizes) >= 262144
    why = ("A Linux sender with TSO, captured with tcpdump on the sending host: the application "
           "writes %s bytes, each as soon as everything before it is acknowledged (%d bytes in "
           "all); the stack hands the NIC what cwnd allows at once in packets of up to 45 "
           "segments (65160 bytes, the 64 KB GSO limit), a write's short last segment ending "
           "its packet (the write of exactly 46 segments leaves as 45 + a lone 1448-byte "
           "segment, the largest at or below the MSS). Slow start from 10 segments, no loss, 1 MiB window; the client has GRO "
           "(interrupts every 10 us). Every frame longer than one "
           "segment has IPv4 total length 0, as such a capture shows a packet the NIC will "
           "split (the IP header checksum is computed over the 0, the TCP checksum over the "
           "real length); the record's original length is the real one, from which Wireshark "
           "(ip.tso_support, on by default) takes tcp.len. Super-packets of many sizes up to "
           "65160 bytes leave the sender: offloaded; ip_len_zero counts those frames."
           % (", ".join(map(str, LINUX_WRITES)), sum(LINUX_WRITES)))
    return offload_expect(c, sim, True, why, "offloaded", ip_len0=True)


def gro_receiver_flow(cap, t0, port):
    """GRO at the capturing client: merged super-packets say nothing about the sender."""
    c, sim, _ = offload_flow(cap, t0, port, False, 400, dict(iw=10, ssthresh=20, ai=True),
                             gro=GRO_FRAMES, u=500)
    sizes = offload_sizes(sim, False)
    merged = [x for x in sizes if x > SEG]
    assert sizes.count(SEG) + len(merged) == len(sizes) and len(set(merged)) >= 10
    assert min(merged) == 2 * SEG and max(merged) == GRO_FRAMES * SEG
    why = ("Captured on the client, whose NIC does GRO: the server sends 400 segments one by "
           "one (no offload; slow start to 20, then one more segment per round trip, no loss, "
           "1 MiB window). They arrive 10 ms later 1 us apart; the client's interrupts every "
           "20 us merge each run into one packet of %d to %d segments (at most 20), whose size "
           "varies with where the burst falls on the interrupt grid (%d times a lone segment, "
           "which the client ACKs 0.5 ms later as usual), and "
           "the client ACKs each merged packet at once. The capture shows only these merged "
           "packets (frame at the interrupt): super-packets seen at the receiver, GRO of the "
           "capturing host: coalesced, nothing known about the sender's offload."
           % (min(merged) // SEG, max(merged) // SEG, sizes.count(SEG)))
    return offload_expect(c, sim, False, why, "coalesced")


def mss_only_flow(cap, t0, port):
    """A sender without offload: a sustained transfer of MSS-sized segments."""
    c, sim, _ = offload_flow(cap, t0, port, True, 348, dict(iw=10, ssthresh=20, ai=True))
    assert set(offload_sizes(sim, True)) == {SEG}
    why = ("Captured on a sender without segmentation offload: 348 segments (503904 bytes) of "
           "exactly 1448 bytes, each its own frame, against a 1 MiB window; slow start 10, 20, "
           "then one more segment per round trip (Reno congestion avoidance, no loss) up to 32: "
           "14 round trips, 13 of them with 20 or more segments (well above 4 MSS) in flight, "
           "the window far from binding. A sustained transfer at the "
           "sender with headroom and no segment above the MSS: mss-capped.")
    return offload_expect(c, sim, True, why, "mss-capped")


def autosized_flow(cap, t0, port):
    """Linux GSO autosizing: one packet per ms of the pacing rate, not a cap."""
    c, sim, _ = offload_flow(cap, t0, port, True, 451, dict(iw=100), tso=LSO_SEGS,
                             pace=(1000000, PACE_SEGS))
    sizes = offload_sizes(sim, True)
    assert sizes[-1] == SEG and set(sizes[:-1]) == {3 * SEG, 4 * SEG}
    assert 2 * sizes.count(4 * SEG) >= len(sizes) - 1
    rate = sum(sizes) / (len(sizes) / 1000.0)       # bytes per second: one packet per ms
    why = ("A paced Linux sender, captured on the sender: one GSO packet per ms of %s "
           "segments (cycled), the last one the lone segment left, %d packets, 451 "
           "segments (653048 bytes), %.2f MB/s; cwnd "
           "(100 segments, about 72 in flight) and the 1 MiB window never bind; the client "
           "(no GRO) ACKs every second segment. Linux sizes a GSO packet to about 1 ms of the "
           "pacing rate (at least 2 segments): 1 ms here is %d bytes, so the largest packet "
           "(5792 = 4 MSS, %d of the %d super-packets) is what the rate allows, not a cap: "
           "offloaded, never capped. The packets are 3 or 4 segments whatever the averaging "
           "of the rate, and the flight (about 72 segments) is not flat at 4 MSS."
           % (", ".join(map(str, PACE_SEGS)), len(sizes), rate / 1e6, rate / 1000,
              sizes.count(4 * SEG), len(sizes) - 1))
    return offload_expect(c, sim, True, why, "offloaded")


def too_little_flow(cap, t0, port):
    """Two super-packets and done: too little to say anything."""
    c, sim, _ = offload_flow(cap, t0, port, True, 0, dict(iw=10), tso=LSO_SEGS, gro=GRO_FRAMES,
                             app=([20000], 0))
    assert offload_sizes(sim, True) == [10 * SEG, 20000 - 10 * SEG]
    why = ("Captured on a TSO sender: one 20000-byte write, sent as a 10-segment packet "
           "(14480, the initial window) and, on the client's ACK, a packet of the 5520 bytes "
           "left (3 x 1448 + 1176). Under 64 KB of new data: unknown. No segment is at "
           "or below the MSS, so there is no mss to report.")
    return offload_expect(c, sim, True, why, "unknown")


def offload_causes(made):
    """tcpdiag.diag.cause of each crafted-offload flow, by port.  made: port ->
    (verdict, data rate, record).  All six come from one sender, 198.51.100.50, so
    offload-capped compares an MSS-only flow with that sender's offloaded flows."""
    rate = {port: r for port, (_, r, _) in made.items()}
    used = sorted(port for port, (verdict, _, _) in made.items() if verdict == "offloaded")
    median = statistics.median(rate[p] for p in used)
    peers = ("the same sender's offloaded flows (%s) ran at %s MB/s over their data phase, "
             "median %.2f MB/s" % (", ".join(map(str, used)),
                                   " and ".join("%.2f" % (rate[p] / 1e6) for p in used), median / 1e6))
    slower = lambda port: "%.2f MB/s, %.2f times slower" % (rate[port] / 1e6, median / rate[port])
    assert median >= 1.5 * rate[41004] and median >= 1.5 * rate[41003]
    short_run = ("none", "One 20000-byte write, done in two round trips without loss: too "
                 "short to be slow for any of the causes (and it used offload itself).")
    return {
        41001: ("sender-limited", "After its one retransmission the sender holds the flight "
                "flat at 5 MSS for the rest of the transfer with a 1 MiB window and no further "
                "loss (the illumos plateau). Its 7240-byte LSO cap is that plateau, which "
                "explains it: not offload-capped, and sender-limited comes first anyway."),
        41002: ("none", "It used offload itself. Slow start without loss against a 1 MiB "
                "window; each write follows the last ACK of the one before at once, so the "
                "sender is never idle with nothing outstanding (not app-limited): none of "
                "the causes holds."),
        41003: ("none", "The sender sent MSS-sized segments without offload and the flow is "
                "slower than its offloaded peers (%s; %s), but it is captured at the client, "
                "whose GRO merges the segments: the capture does not show the sender's "
                "segments as MSS-only (verdict coalesced), the first condition of "
                "offload-capped fails. cwnd growth without loss or window limit: none of the "
                "other causes holds." % (slower(41003), peers)),
        41004: ("offload-capped", "MSS-only segments at the sender (mss-capped) with no "
                "plateau (the flight grows by a segment per round) and no loss or ECN signal "
                "(no collapse), while %s; this flow ran at %s (at least 1.5). 41001 (LSO "
                "packets capped by its flight plateau) and 41006 (too little data for a "
                "verdict) do not count as offloaded." % (peers, slower(41004))),
        41005: ("none", "It used offload itself (packets sized to 1 ms of its pacing rate). "
                "The pacing keeps the flight near 72 segments, far below cwnd and the window, "
                "for about 6 round trips: fewer than the 10 a plateau needs, so not "
                "sender-limited; no loss: none of the causes holds."),
        41006: short_run,
    }


def build_offload(outdir):
    cap = Capture("crafted-offload")
    made, t0 = {}, 0.0
    # the start phase (us) against the client's interrupt grid shapes the GRO runs
    for phase, port, make in ((2, 41001, lso_capped_flow),
                              (8, 41002, tso_iplen0_flow),
                              (17, 41003, gro_receiver_flow),
                              (0, 41004, mss_only_flow),
                              (0, 41005, autosized_flow),
                              (0, 41006, too_little_flow)):
        made[port] = make(cap, t0 + phase / 1000.0, port)
        t0 = -(-after_last(cap) // 100) * 100.0     # on the next whole 100 ms
    causes = offload_causes(made)
    flows = [record(causes[port]) for port, (_, _, record) in made.items()]
    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    write_expected(outdir, cap.name,
                   "Segmentation offload (tcpdiag.offload): six downloads from "
                   "198.51.100.50:443 to 192.0.2.50, one after the other, each on its own "
                   "port, simulated ACK by ACK and written as the capturing host sees them. "
                   "41001 illumos LSO at the sender, capped at the 5 MSS flight after a fast "
                   "retransmit; 41002 Linux TSO at the sender with IPv4 total length 0 on its "
                   "super-packets; 41003 GRO at the capturing client; 41004 a sender without "
                   "offload; 41005 Linux GSO autosized to 1 ms of a 5 MB/s pacing rate; 41006 "
                   "20 KB, too little.", flows, flow_count=len(flows))
    return flows


# --------------------------------------------------------------------------

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        sys.exit("usage: make-crafted.py [OUTPUT_DIR]   (default: captures/)")
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(here)
    os.makedirs(outdir, exist_ok=True)
    build_accecn_table(outdir, **ACCECN_V4)
    build_classic_table(outdir)
    build_accecn_table(outdir, **ACCECN_V6)
    build_fallback(outdir)
    build_partial(outdir)
    build_truncated(outdir)
    build_hostile(outdir)
    build_opts(outdir)
    build_flight(outdir)
    build_offload(outdir)


if __name__ == "__main__":
    main()
