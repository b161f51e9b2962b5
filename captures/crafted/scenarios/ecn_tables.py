"""crafted-accecn-table.pcap and crafted-ipv6-accecn.pcap (an AccECN SYN for every
SYN-ACK row of RFC 9768 Table 2), and crafted-classic-table.pcap (classic SYNs
against every SYN-ACK row, and the reserved SYN combinations)."""

import struct

from rfc_tables import NEGOTIATED

from .packets import FIN, PSH, ACK, ace_bits, Capture, Conn
from .expected import WHY_DATA, WHY_SNAP, expect, short, write_capture


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
    hosts = [{"client": client,
              "why": host_why % neg,
              "expect": {"tcpdiag.host.conns": len(flows),
                         "tcpdiag.host.ecn_requested": len(flows),
                         "tcpdiag.host.ecn_negotiated": neg,
                         "tcpdiag.host.ecn_share": "%d of %d requested ECN" % (len(flows), len(flows))}}]
    write_capture(outdir, cap, story, flows, hosts=hosts)


def build_classic_table(outdir):
    cap = Capture("crafted-classic-table")
    client, client2, server = "192.0.2.20", "192.0.2.21", "198.51.100.20"
    flows = []
    t = 0.0

    # 40201: classic, with a CE mark, ECE until CWR, and a Not-ECT retransmission
    c = Conn(cap, t, client, server, 40201)
    c.handshake((0, 1, 1), (0, 0, 1), "classic")
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
        c.handshake((0, 1, 1), sa)
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
    write_capture(outdir, cap,
                  "IPv4, capture near the client. Client 192.0.2.20 sends classic ECN-setup "
                  "SYNs (0,1,1) answered by each SYN-ACK row (40201-40207); client 192.0.2.21 "
                  "sends the five reserved SYN combinations (40211-40215). Server "
                  "198.51.100.20:443.", flows, hosts=hosts)
