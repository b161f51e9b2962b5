"""crafted-fallback.pcap: ECN SYNs retried without ECN flags, retried unchanged,
and an ICMP quote that only looks like a fall-back."""

from scapy.layers.inet import ICMP, IP, TCP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from .packets import SYN, CLIENT_MAC, SERVER_MAC, Capture, Conn
from .expected import WHY_DATA, WHY_SNAP, expect, short, write_capture


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

    syn, synack = Conn.syn, Conn.synack
    # One row per flow, 200 ms apart: the handshake packets in order (SYN or SYN-ACK,
    # (AE,CWR,ECE), ms since the previous packet; every SYN has the same ISN), the data
    # (mode, client and server codepoints), outcome, feedback, why and cause.
    retries = (
        (40401, ((syn, (1, 1, 1), 0.0), (syn, (0, 0, 0), 1000.0), (synack, (0, 0, 0), 20.0)),
         (), "fallback", None,
         "AccECN SYN (1,1,1) unanswered, retransmitted 1 s later with the same ISN and "
         "(AE,CWR,ECE)=(0,0,0) (Linux tcp_ecn_clear_syn with tcp_ecn_fallback=1; RFC 9768 "
         "§3.1.4.1 allows other fall-back strategies); the server answers the plain SYN with "
         "(0,0,0). tcpdiag: ECN-setup SYN followed by a same-ISN SYN without ECN flags = "
         "'fallback'. syn_ip_ecn is the last SYN's codepoint. No ECT data (RFC 3168 §6.1.1: a "
         "host that sent a non-ECN-setup SYN MUST NOT set ECT). ", blackhole("1 s")),
        # RFC 9768 §3.1.4.1 recommended: retry AccECN once, then clear
        (40402, ((syn, (1, 1, 1), 0.0), (syn, (1, 1, 1), 1000.0), (syn, (0, 0, 0), 2000.0),
                 (synack, (0, 0, 0), 20.0)),
         (), "fallback", None,
         "RFC 9768 §3.1.4.1: the client 'SHOULD attempt to negotiate the use of AccECN at least "
         "one more time' on the first retransmitted SYN, then 'SHOULD send subsequent "
         "retransmissions of the SYN with the three TCP-ECN flags cleared' with 'the same "
         "initial sequence number'. SYNs at 0, 1 s, 3 s; SYN-ACK (0,0,0) to the last. "
         "'fallback'. ", blackhole("3 s")),
        (40403, ((syn, (0, 1, 1), 0.0), (syn, (0, 0, 0), 1000.0), (synack, (0, 0, 0), 20.0)),
         (), "fallback", None,
         "RFC 3168 §6.1.1.1: 'A host that receives no reply to an ECN-setup SYN within the "
         "normal SYN retransmission timeout interval MAY resend the SYN and any subsequent SYN "
         "retransmissions with CWR and ECE cleared.' Classic SYN (0,1,1), then same-ISN SYN "
         "(0,0,0), SYN-ACK (0,0,0): 'fallback'. ", blackhole("1 s")),
        (40404, ((syn, (0, 1, 1), 0.0), (syn, (0, 1, 1), 1000.0), (synack, (0, 0, 1), 20.0)),
         ("classic", "ect0", "ect0"), "classic", None,
         "Control: classic SYN retransmitted with its ECN flags unchanged (RFC 3168 §6.1.1.1 "
         "'may retransmit one or more ECN-setup SYN packets'); SYN-ACK (0,0,1) = ECN-setup "
         "SYN-ACK: 'classic', not 'fallback'. ECT(0) data both ways. ", retried),
        (40405, ((syn, (1, 1, 1), 0.0), (syn, (1, 1, 1), 1000.0), (synack, (0, 1, 0), 20.0)),
         ("accecn", "ect1", "ect1"), "accecn", "not-ect",
         "Control: AccECN SYN retransmitted once with (1,1,1) as RFC 9768 §3.1.4.1 "
         "recommends; SYN-ACK (0,1,0) (Table 2, Not-ECT SYN): 'accecn', feedback not-ect. ",
         retried),
        (40406, ((syn, (0, 0, 0), 0.0), (syn, (0, 0, 0), 1000.0), (synack, (0, 0, 0), 20.0)),
         (), "not-requested", None,
         "Control: a SYN without ECN flags retransmitted unchanged; nothing to fall back from: "
         "'not-requested'. ", retried),
        # the RFC 3168 §6.1.1.1 example, where the first SYN-ACK is visible: it is lost
        # after the capture point
        (40407, ((syn, (0, 1, 1), 0.0), (synack, (0, 0, 1), 20.0), (syn, (0, 0, 0), 980.0),
                 (synack, (0, 0, 0), 20.0)),
         (), "fallback", None,
         "The RFC 3168 §6.1.1.1 example: '(1) Host A: Sends an ECN-setup SYN. (2) Host B: Sends "
         "an ECN-setup SYN/ACK, packet is dropped or delayed. (3) Host A: Sends a non-ECN-setup "
         "SYN. (4) Host B: Sends a non-ECN-setup SYN/ACK ... neither Host A nor Host B may set "
         "the ECT bit on data packets.' The first SYN-ACK (0,0,1) is captured but lost later. "
         "The same-ISN SYN without ECN flags makes it 'fallback'; synack_ip_ecn is the last "
         "SYN-ACK's. ", blackhole("0.98 s", synack_lost)),
        # AccECN variant: the first SYN-ACK is lost after the capture point, and the server,
        # already in AccECN mode, SHOULD answer the plain SYN with AccECN again (RFC 9768 §3.1.5)
        (40408, ((syn, (1, 1, 1), 0.0), (synack, (0, 1, 0), 20.0), (syn, (0, 0, 0), 980.0),
                 (synack, (0, 1, 0), 20.0)),
         ("accecn", "not-ect", "not-ect"), "fallback", None,
         "AccECN SYN, AccECN SYN-ACK (0,1,0) lost after the capture point, retried SYN "
         "(0,0,0) with the same ISN, answered again with an AccECN SYN-ACK (0,1,0) as RFC 9768 "
         "§3.1.5 recommends ('SHOULD acknowledge a valid SYN arriving with (AE,CWR,ECE) = "
         "(0,0,0) by emitting an AccECN SYN/ACK'). The tcpdiag rule makes any ECN SYN followed "
         "by a same-ISN SYN without ECN flags 'fallback'. The server 'MUST NOT set ECT' after a "
         "(0,0,0) SYN (RFC 9768 §3.1.5) and the client chooses not to either (it MAY): no ECT "
         "data. ", blackhole("0.98 s", synack_lost)),
    )
    for i, (port, packets, data, outcome, feedback, why, cause) in enumerate(retries):
        c = Conn(cap, 200.0 * i, client, server, port)
        for send, flags3, dt in packets:
            send(c, flags3, dt=dt)
        finish(c, *data)
        flows.append(expect(c, outcome, why + WHY_DATA + WHY_SNAP, cause=cause,
                            feedback=feedback))

    # 40409: not a fall-back: a tracebox-style probe.  The AccECN SYN is first sent
    # with TTL 3; hop 3 answers ICMP time-exceeded quoting the SYN as it arrived,
    # with the ECN flags already cleared by a middlebox at hop 1-2.  Wireshark puts
    # the quoted TCP header in the same tcp.stream.  The SYN is then sent again (same
    # ISN, TTL 64); it arrives with (0,0,0) and the server answers (0,0,0).
    c = Conn(cap, 1600.0, client, server, 40409)
    probe = c.syn((1, 1, 1), ttl=3)
    hop = "203.0.113.3"
    quoted = bytearray(probe[14:])
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
    # Wireshark gives the quote the flow's tcp.stream, but it is no segment of the
    # exchange: tcpdiag counts it apart (icmp_quotes), not in packets
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
        "not the ICMP packet's outer CS6 byte. The ICMP frame carries the flow's tcp.stream "
        "but is not part of the TCP exchange: packets counts the 13 TCP segments, "
        "icmp_quotes the one ICMP error. " + WHY_DATA + WHY_SNAP,
        cause=short("declined; the ICMP quote is no fall-back and the resent SYN kept its "
                    "flags"), overrides={"tcpdiag.flow.icmp_quotes": 1}))

    write_capture(outdir, cap,
                  "IPv4, client 192.0.2.40, server 198.51.100.40:443. ECN SYNs retried "
                  "without ECN flags (same ISN) -> 'fallback' (40401-40403, 40407, 40408), "
                  "retried unchanged as controls (40404-40406), and 40409: an ICMP "
                  "time-exceeded quoting the SYN with its ECN flags cleared (not a "
                  "fall-back).",
                  flows)
