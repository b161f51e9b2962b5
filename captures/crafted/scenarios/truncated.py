"""crafted-truncated.pcap: a 54-byte snaplen cutting options, TCP headers and,
for IPv6, everything past the IP header."""

from .packets import Capture, Conn
from .expected import OPTIONS_CUT, WHY_DATA, WHY_SNAP, diagnosis, expect, write_capture


def build_truncated(outdir):
    cap = Capture("crafted-truncated", snaplen=54)
    client, server = "192.0.2.60", "198.51.100.60"
    flows = []

    def options_cut(c, outcome, why, **kw):
        """A flow whose handshake options the snaplen cut: each MSS sent, none captured."""
        c.syn_mss_seen = c.synack_mss_seen = None
        flows.append(expect(c, outcome, why + WHY_DATA, cause=OPTIONS_CUT,
                            select={"tcp.stream": len(flows)}, **kw))

    # 40601: AccECN, all records cut at 54 bytes (Ethernet + IPv4 + 20-byte TCP header):
    # flags complete, options (MSS) cut.
    c = Conn(cap, 0.0, client, server, 40601)
    c.handshake((1, 1, 1), (0, 1, 0), "accecn")
    c.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 1448), ("ect1", 400)))
    options_cut(c, "accecn", feedback="not-ect",
        why="Snaplen 54: each record holds Ethernet, the 20-byte IPv4 header and the fixed "
        "20-byte TCP header, so the flags (and ACE) are complete but every TCP option is cut. "
        "AccECN SYN (1,1,1) Not-ECT, SYN-ACK (0,1,0): 'accecn', feedback not-ect (RFC 9768 "
        "Table 2). The MSS options were sent but not captured: client_mss/server_mss absent. "
        "Payload lengths come from the IPv4 total length, so codepoint counts are still "
        "known. ")

    # 40602: classic, all cut at 54
    c = Conn(cap, 100.0, client, server, 40602)
    c.handshake((0, 1, 1), (0, 0, 1), "classic")
    c.exchange(req=(("ect0", 180),), resp=(("ect0", 1448), ("ect0", 1448), ("ect0", 700)))
    options_cut(c, "classic",
        why="Snaplen 54 as above. Classic SYN (0,1,1), SYN-ACK (0,0,1): 'classic' (RFC 3168 "
        "§6.1.1). MSS options not captured: absent. ")

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
    flows.append(expect(c, "unknown", syn_seen=False, select={"tcp.stream": len(flows)},
        why="The SYN record holds only 13 bytes of TCP header (caplen 47): its AE bit is "
        "captured but CWR/ECE are not, and Wireshark 4.0.17 dissects no TCP fields (no "
        "tcp.stream) for fewer than 16 captured TCP header bytes. The flow, as Wireshark numbers "
        "it, starts at the SYN-ACK: the SYN's flags are not known, so 'unknown'; roles known "
        "from the SYN-ACK; SYN-ACK MSS cut (absent). Selected by tcp.stream because the cut "
        "SYN still carries tcp.port. packets counts the frames of the tcp.stream. " + WHY_SNAP.replace("128", "54"),
        cause=("unknown", "The SYN is not dissected, so the flow has no SYN, and the "
               "SYN-ACK's options are cut by the snaplen: the window scale is unknown.")))

    # 40604: VLAN-tagged flow; snaplen 54 leaves 16 bytes of TCP header: flags and
    # window captured, checksum/urgent/options cut.  Wireshark 4.0.17 dissects it.
    c = Conn(cap, 300.0, client, server, 40604, vlan=60)
    c.handshake((1, 1, 1), (0, 1, 0), "accecn")
    c.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 400)))
    options_cut(c, "accecn", feedback="not-ect",
        why="802.1Q-tagged flow under the same 54-byte snaplen: the 4-byte tag leaves 16 "
        "bytes of TCP header per record (ports, seq, ack, offset, flags, window; checksum, "
        "urgent pointer and options cut). Wireshark 4.0.17 dissects a TCP header from 16 "
        "captured bytes on, so the flags are known: AccECN SYN, SYN-ACK (0,1,0) -> 'accecn', "
        "feedback not-ect. MSS absent (not captured). ")
    streams = len(flows)        # the flows below make no tcp.stream

    # 40606: QinQ (two 802.1Q tags): 12 bytes of TCP header per record.  Wireshark
    # 4.0.17 shows the ports but no flags and no tcp.stream: no flow exists.
    c = Conn(cap, 400.0, client, server, 40606, vlan=(100, 60))
    c.handshake((1, 1, 1), (0, 1, 0), "accecn")
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
    c6.handshake((1, 1, 1), (0, 1, 0), "accecn")
    c6.exchange(req=(("ect1", 200),), resp=(("ect1", 1448), ("ect1", 400)))
    # Not selectable (no TCP field at all); stated in the story.

    write_capture(outdir, cap,
                  "Snaplen 54 (pcap header snaplen 54; records caplen <= 54, orig_len the "
                  "real length). 40601/40602: full 20-byte TCP headers, options cut. 40603: "
                  "SYN cut to 13 TCP bytes, the rest at 54. 40604: VLAN-tagged, 16 TCP bytes "
                  "per record. 40606: QinQ, 12 TCP bytes per record. 40605: IPv6 flow of "
                  "which only Ethernet + IPv6 header (54 bytes) is captured; it has no TCP "
                  "fields and cannot be selected. Wireshark 4.0.17 dissects TCP (flags, "
                  "tcp.stream) only when at least 16 bytes of the TCP header are captured: "
                  "flow_count 4 (streams 0-3). Client 192.0.2.60, server 198.51.100.60:443.",
                  flows, flow_count=streams)
