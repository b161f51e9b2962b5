"""crafted-accuracy.pcap: the accuracy problems of tcpdiag issue 12 that other
projects' test data showed, one flow each: the MSS of a paced GSO flow, a
malformed last SYN-ACK option, a SYN whose options the snaplen cut answered by a
SYN-ACK with only an MSS, records cut below their IP length (IPv4 and IPv6), an
ICMP error quoting a SYN after the transfer, and a flow without roles."""

from scapy.layers.inet import ICMP, IP, TCP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from .packets import ACK, FIN, PSH, SYN, CLIENT_MAC, SERVER_MAC, Capture, Conn
from .expected import WHY_DATA, WHY_SNAP, expect, short, write_capture
from .ackclock import SEG, after_last, flight_flow, sim_expect


CLIENT, SERVER = "192.0.2.80", "198.51.100.80"
PACE_NS = 5500000           # one 2-segment GSO packet every 5.5 ms: 526.5 kB/s
PACE_SEGS = 400             # 200 GSO packets after the short first write
SHORT_WRITE = 880           # the early short segment the MSS was once taken from
# MSS 1460, window scale 3, SACK-permitted, two NOPs, then a timestamps option that
# claims 10 bytes where the 20-byte option space leaves 9 (data offset 10)
BAD_TS_OPTIONS = bytes([2, 4, 0x05, 0xB4, 3, 3, 3, 4, 2, 1, 1, 8, 10, 0, 0x0D, 0xBB, 0xA1, 0, 1, 0x8F])


def paced_flow(cap, t0):
    """Item 3: a sender paced to 2 x 1448 bytes every 5.5 ms, captured on its host,
    where GSO hands the NIC 2-segment packets (Linux's minimum, tcp_min_tso_segs)."""
    cc = dict(iw=100000)                # never the limit: the pacing is
    c, sim, frames = flight_flow(cap, t0, 41201, True, None, cc, hosts=(CLIENT, SERVER),
                                 app=((SHORT_WRITE, PACE_SEGS * SEG), 2000000), tso=2,
                                 pace=(PACE_NS, (2,)))
    sizes = sorted({sim.nbytes(r) for r in sim.log if r[0] == "data"})
    assert sizes == [SHORT_WRITE, 2 * SEG], sizes
    # each 2-segment packet is ACKed (one ACK for both) 20 ms + 3 us after it left: a
    # packet is still unacknowledged when the 3 sent after it leave (3 x 5.5 = 16.5 ms)
    # but not the 4th (22 ms), so 4 packets = 8 segments are in flight at each send
    plateau = 4 * 2 * SEG
    why = ("Issue 12 item 3. The server first writes %d bytes (one short segment, "
           "frame %d), waits until they are acknowledged and 2 ms more, then writes %d "
           "segments of 1448 bytes, paced: one GSO packet of 2 segments (2896 bytes, the "
           "Linux minimum) every 5.5 ms (526.5 kB/s), the congestion window never the "
           "limit. Captured at the sender, the data is one 880-byte segment and %d "
           "2896-byte packets: no single 1448-byte segment. The MSS is the full segment, "
           "1448 (2896 = 2 x 1448, within the 1460-byte MSS less the 12 bytes of "
           "timestamps; docs/offload.md 'The MSS'), not the 880-byte segment. Each "
           "packet's ACK reaches the server 20 ms after it left: at each send the 3 "
           "packets before it (16.5 ms) are still out and the 4th (22 ms) is not, so every "
           "round trip has 4 x 2896 = 11584 bytes in flight: a flat plateau of 8.0 MSS "
           "(13.2 with the 880-byte MSS), far below the 1 MiB window and with no loss: "
           "limit sender." % (SHORT_WRITE, cap.frame_number(frames[0, False]), PACE_SEGS,
                             PACE_SEGS // 2))
    fields = {
        "tcpdiag.flight.mss": SEG,
        "tcpdiag.offload.mss": SEG,
        "tcpdiag.offload.max": 2 * SEG,
        "tcpdiag.offload.super_packets": PACE_SEGS // 2,
        "tcpdiag.flight.limit": "sender",
        "tcpdiag.flight.plateau": plateau,
        "tcpdiag.flight.plateau_mss": plateau / SEG,
        "tcpdiag.flight.plateau_limit": "sender",
    }
    cause = ("sender-limited", "The pacing holds the flight flat at 8 MSS while the client "
             "offers 1 MiB and nothing is lost (flight limit sender).")
    return sim_expect(c, True, why, WHY_DATA + WHY_SNAP, fields, cause)


def bad_ts_synack(c):
    """The SYN-ACK with BAD_TS_OPTIONS, written as the options' bytes after a 20-byte
    header whose data offset then claims them."""
    c.t += 20000
    frame = Ether(c.frame("s", SYN | ACK, c.s_isn, c.c_isn + 1, BAD_TS_OPTIONS, opts=[],
                          window=65160))
    frame[TCP].dataofs = 10
    del frame[TCP].chksum
    c.cap.add(c.t, bytes(frame))
    c.packets += 1
    c.nxt["s"] = c.s_isn + 1
    c.synack_ecn, c.synack_mss_seen = "not-ect", 1460


def malformed_option_flow(cap, t0):
    """Item 4: a malformed timestamps option last in the SYN-ACK."""
    c = Conn(cap, t0, CLIENT, SERVER, 41202)
    c.syn()
    bad_ts_synack(c)
    c.third_ack()
    c.exchange(req=(("not-ect", 180),), resp=(("not-ect", 1448), ("not-ect", 1448), ("not-ect", 500)))
    return expect(c, "not-requested",
        "Issue 12 item 4. A Linux SYN (MSS 1460, SACK_PERM, TS, WS 7). The SYN-ACK's 20 "
        "option bytes hold MSS 1460, window scale 3, SACK-permitted (all well formed), two "
        "NOPs, then a timestamps option (kind 8, length 10) that starts 9 bytes before the "
        "header ends: it overruns the header, so nothing can follow it. The three options "
        "before it are kept (opts.server 'mss,wscale,sack_perm', server_wscale 3), only ts "
        "is unreadable in the SYN-ACK (server_unreadable 'ts'). Every later segment of both "
        "sides carries timestamps, which RFC 7323 §3.2 allows only once both SYNs carried "
        "them, so ts_used is 'yes' (as tcptrace reports), and with it all four are known: "
        "nothing missing, nothing left out. " + WHY_DATA + WHY_SNAP,
        cause=short(), overrides={
            "tcpdiag.opts.server": "mss,wscale,sack_perm",
            "tcpdiag.opts.server_unreadable": "ts",
            "tcpdiag.opts.server_wscale": 3,
            "tcpdiag.opts.client": "mss,wscale,sack_perm,ts",
            "tcpdiag.opts.client_unreadable": None,
            "tcpdiag.opts.wscale_used": "yes",
            "tcpdiag.opts.sack_used": "yes",
            "tcpdiag.opts.ts_used": "yes",
            "tcpdiag.opts.missing": "none",
            "tcpdiag.opts.left_out_by_server": "none",
        })


def cut_syn_flow(cap, t0):
    """Item 4, related: the SYN's options cut by the snaplen, a SYN-ACK with only an
    MSS; neither side sends timestamps afterwards (they were not negotiated)."""
    c = Conn(cap, t0, CLIENT, SERVER, 41203)
    c.syn(caplen=54)
    c.syn_mss_seen = None
    c.synack_ecn, c.synack_mss_seen = "not-ect", 1460
    c.emit("s", SYN | ACK, dt=20.0, seq=c.s_isn, ack=c.c_isn + 1, opts=[("MSS", 1460)], window=65535)
    c.emit("c", ACK, dt=0.15, opts=[], window=64240)
    c.emit("c", PSH | ACK, n=180, dt=0.1, opts=[], window=64240)
    for i, n in enumerate((1460, 1460, 500)):
        c.emit("s", PSH | ACK, n=n, dt=20.0 if i == 0 else 0.12, opts=[], window=65535)
        if i % 2 == 1 or i == 2:
            c.emit("c", ACK, dt=0.05, opts=[], window=64240)
    c.emit("s", FIN | ACK, dt=5.0, opts=[], window=65535)
    c.emit("c", FIN | ACK, dt=0.3, opts=[], window=64240)
    c.emit("s", ACK, dt=20.0, opts=[], window=65535)
    return expect(c, "not-requested",
        "Issue 12 item 4, related. The SYN record is cut at 54 bytes (caplen 54 of 74): its "
        "20 option bytes are not captured (client_mss absent, opts.client absent, every "
        "option unreadable). The SYN-ACK announces only MSS 1460, so window scaling, SACK "
        "and timestamps were certainly not used, whatever the SYN offered (RFC 7323 §2.2, "
        "RFC 2018 §2): *_used 'no', missing and left_out_by_server 'wscale,sack,ts'; "
        "left_out_by_client absent (unknown). Neither side sends timestamps afterwards and "
        "the server sends full 1460-byte segments. " + WHY_DATA + WHY_SNAP,
        cause=("none", "Window scaling is certainly not in use, but the whole answer, 3420 "
               "bytes, fits in one unscaled window of 65535 bytes (RFC 7323 §2.2): no byte of "
               "it ever waited for the window to open, however fast it left (14.2 MB/s "
               "between its first and last data segment, above 80 %% of the 64 KiB ceiling "
               "at the 20.15 ms handshake round trip, 65535 / 0.02015 = %.2f MB/s): "
               "at_ceiling 'no' by docs/options.md's measure, and the exchange ends within a "
               "few round trips: too short to be slow for any of the causes."
               % (65535 / 0.02015 / 1e6)), overrides={
            "tcpdiag.opts.at_ceiling": "no",
            "tcpdiag.opts.client": None,
            "tcpdiag.opts.client_unreadable": "mss,wscale,sack_perm,ts,tfo,mptcp,accecn",
            "tcpdiag.opts.server": "mss",
            "tcpdiag.opts.server_unreadable": None,
            "tcpdiag.opts.wscale_used": "no",
            "tcpdiag.opts.sack_used": "no",
            "tcpdiag.opts.ts_used": "no",
            "tcpdiag.opts.missing": "wscale,sack,ts",
            "tcpdiag.opts.left_out_by_server": "wscale,sack,ts",
            "tcpdiag.opts.left_out_by_client": None,
            "tcpdiag.opts.window_ceiling": 65535,
        })


def rewritten_length_flow(cap, t0, port, client, server):
    """Item 5: every record cut at 128 bytes and its original length rewritten to the
    cut, while the IP header still gives the whole packet's length."""
    first = len(cap.records)
    c = Conn(cap, t0, client, server, port)
    c.handshake((0, 0, 0), (0, 0, 0))
    resp = (1448,) * 20 + (1161,)
    c.exchange(req=(("not-ect", 180),), resp=tuple(("not-ect", n) for n in resp))
    cut = 0
    for i in range(first, len(cap.records)):
        t_us, seqno, data, orig = cap.records[i]
        cap.records[i] = (t_us, seqno, data, len(data))
        cut += orig > len(data)
    ip = "IPv6 payload length" if c.v6 else "IPv4 total length"
    # header bytes before the payload: Ethernet, IP, TCP with the 12-byte timestamps option
    room = 128 - 14 - (40 if c.v6 else 20) - 32
    return expect(c, "not-requested",
        "Issue 12 item 5 (%s). The snaplen cuts every record at 128 bytes and the original "
        "length is rewritten down to the captured length (as some tools do), while the %s "
        "still gives the whole packet. tcp.len follows the cut (at most %d bytes), so the "
        "payload of the %d records that were cut comes from the IP header: the server's %d "
        "segments carry %d bytes (20 x 1448 + 1161), the client's request 180. "
        % ("IPv6" if c.v6 else "IPv4", ip, room, cut, len(resp), sum(resp)) + WHY_DATA,
        cause=("none", "Data flowed after a captured handshake, and the answer (21 segments "
               "sent at once) ends within a few round trips: too short to be slow for any "
               "of the causes."),
        overrides={"tcpdiag.flow.sizes_from_ip": cut})


def icmp_after_transfer_flow(cap, t0):
    """Item 7: an ICMP error quoting the SYN arrives after the transfer ended."""
    c = Conn(cap, t0, CLIENT, SERVER, 41206)
    syn = c.syn()
    c.synack()
    c.third_ack()
    # No FINs: Wireshark 4.4 and later take a SYN quoted after a closed connection for
    # a new one (its own tcp.stream), 4.0 keeps it in the flow; open, both keep it.
    c.exchange(req=(("not-ect", 180),), resp=(("not-ect", 1448), ("not-ect", 1448), ("not-ect", 500)),
               close=False)
    first_us = min(r[0] for r in cap.records[-c.packets:])
    last_us = c.t
    hop = "203.0.113.8"
    quoted = IP(syn[14:])
    icmp = bytes(Ether(src=SERVER_MAC, dst=CLIENT_MAC) /
                 IP(src=hop, dst=CLIENT, tos=0xC0, ttl=62, id=4343) /
                 ICMP(type=3, code=1) / Raw(bytes(quoted)))
    c.t += 380000
    cap.add(c.t, icmp)
    duration = (last_us - first_us) / 1e6
    return expect(c, "not-requested",
        "Issue 12 item 7. A complete short exchange (%d TCP segments over %.6f s); 380 ms "
        "after its last segment, router %s returns ICMP host unreachable quoting the SYN "
        "(the whole SYN, as RFC 1812 §4.3.2.3 routers may), which Wireshark puts in the "
        "flow's tcp.stream (the connection was not closed). The error is not part of the TCP exchange: packets "
        "counts the %d segments, icmp_quotes the one error, and the duration ends at the "
        "last segment (%.6f s, not %.6f s). " % (c.packets, duration, hop, c.packets,
                                              duration, duration + 0.38) + WHY_DATA + WHY_SNAP,
        cause=short(), overrides={
            "tcpdiag.flow.icmp_quotes": 1,
            "tcpdiag.flow.duration": {"min": duration - 1e-6, "max": duration + 1e-6},
        })


def roles_unknown_flow(cap, t0):
    """Item 8: a flow captured mid-transfer, roles unknown; its subtrees name the
    directions by address (asserted in test/integration/test_behaviour.py)."""
    c = Conn(cap, t0, CLIENT, SERVER, 41207)
    c.nxt = {"c": c.c_isn + 1 + 200, "s": c.s_isn + 1 + 90000}
    for j in range(4):
        c.data("s", 1448, "not-ect", dt=0.12 if j else 0.0)
        if j % 2:
            c.pure_ack("c", dt=0.05)
    c.close()
    return expect(c, "unknown",
        "Issue 12 item 8. Captured mid-transfer: 4 server segments of 1448 bytes, the "
        "client's ACKs and the FINs, no SYN or SYN-ACK, so roles are unknown. The Flight, "
        "Congestion and Offload subtrees name the direction by its addresses "
        "('198.51.100.80:443 \u2192 192.0.2.80:41207') instead of an empty role name. "
        + WHY_SNAP, roles="unknown",
        cause=("unknown", "The handshake was not captured: no roles, window scale or round "
               "trip."))


def build_accuracy(outdir):
    cap = Capture("crafted-accuracy")
    flows = [paced_flow(cap, 0.0)]
    flows.append(malformed_option_flow(cap, after_last(cap)))
    flows.append(cut_syn_flow(cap, after_last(cap)))
    flows.append(rewritten_length_flow(cap, after_last(cap), 41204, CLIENT, SERVER))
    flows.append(rewritten_length_flow(cap, after_last(cap), 41205, "2001:db8:c1::80",
                                       "2001:db8:51::80"))
    flows.append(icmp_after_transfer_flow(cap, after_last(cap)))
    flows.append(roles_unknown_flow(cap, after_last(cap)))
    write_capture(outdir, cap,
                  "Issue 12: one flow per accuracy problem found on other projects' test "
                  "data. 41201: a paced sender's GSO packets of 2 x 1448 and one early "
                  "880-byte segment (the MSS). 41202: a SYN-ACK whose last option "
                  "(timestamps) overruns the header. 41203: a SYN cut by the snaplen, "
                  "answered with only an MSS. 41204 (IPv4) and 41205 (IPv6): records cut at "
                  "128 bytes with their original length rewritten to the cut. 41206: an ICMP "
                  "error quoting the SYN after the transfer. 41207: mid-flow, roles unknown. "
                  "Client 192.0.2.80 (2001:db8:c1::80), server 198.51.100.80:443.",
                  flows)
