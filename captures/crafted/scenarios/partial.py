"""crafted-partial-handshakes.pcap: handshakes with pieces missing from the
capture, and ECT used without or against negotiation."""

from .packets import Capture, Conn
from .expected import NO_PAYLOAD, WHY_DATA, WHY_SNAP, expect, short, write_capture


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
    c.handshake((0, 0, 0), (0, 0, 0))
    c.exchange(req=(("not-ect", 180),), resp=(("ect0", 1448), ("ect0", 1448), ("ect0", 700)))
    flows.append(expect(c, "not-requested",
        why="SYN (0,0,0), SYN-ACK (0,0,0): 'not-requested'. The server nevertheless sends ECT(0) "
        "data, which RFC 3168 §6.1.1 forbids ('MUST NOT set ECT on data packets unless it has "
        "sent ... and received at least one ECN-setup SYN or ECN-setup SYN-ACK'): s2c.data "
        "'unnegotiated-ect'; c2s.data 'not-ect'. " + WHY_DATA + WHY_SNAP,
        cause=short("ECT(0) data without negotiation")))

    # 40506: declined, server sends ECT(1) anyway
    c = Conn(cap, 500.0, client, server, 40506)
    c.handshake((0, 1, 1), (0, 0, 0))
    c.exchange(req=(("not-ect", 180),), resp=(("ect1", 1448), ("ect1", 1448), ("ect1", 700)))
    flows.append(expect(c, "declined",
        why="Classic SYN (0,1,1), SYN-ACK (0,0,0) declines (RFC 3168 §6.1.1 non-ECN-setup "
        "SYN-ACK): 'declined'. The server still sends ECT(1) (an L4S sender ignoring the "
        "negotiation): s2c.data 'unnegotiated-ect'. " + WHY_DATA + WHY_SNAP,
        cause=short("declined, then ECT(1) data anyway")))

    # 40507: ECN++ style ECT(0) on the SYN, declined (Linux refuses ECN when the SYN is ECT)
    c = Conn(cap, 600.0, client, server, 40507)
    c.handshake((0, 1, 1), (0, 0, 0), "none", syn_ecn="ect0")
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

    write_capture(outdir, cap,
                  "IPv4, client 192.0.2.50, server 198.51.100.50:443. Handshakes with pieces "
                  "missing from the capture (SYN only, SYN-ACK onwards, mid-flow, SYN-ACK "
                  "lost at the capture), and ECT used without or against negotiation.",
                  flows)
