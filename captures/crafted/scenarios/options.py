"""crafted-opts.pcap: handshake options (tcpdiag.opts, docs/fields.md): TCP_NOOPT
SYNs, a SYN-ACK without window scaling, stripped timestamps, TFO and MPTCP."""

from .packets import FIN, SYN, PSH, ACK, HANDSHAKE_ACE, ace_bits, aef, Capture, Conn
from .expected import WHY_DATA, WHY_SNAP, expect, write_capture


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

    # 40801: TCP_NOOPT client over IPv4; 40802: the same over IPv6
    noopt = (
        (client, server, 40801, 1460, 536, 8,
         "TCP_NOOPT signature (a macOS app passing IPPROTO_TCP as the level with "
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
         "here, the per-flow format cannot)."),
        (client6, server6, 40802, 1440, 1220, 19,
         "40801 over IPv6: SYN without options, SYN-ACK with MSS 1440 only. Without an MSS "
         "option the peer must assume the IPv6 minimum MTU 1280 (RFC 8200 §5) minus 60 bytes "
         "of IPv6 + TCP headers = 1220 (RFC 9293 §3.7.1 'the default IPv6 MSS'), and the "
         "server sends 1220-byte segments, 2 ms apart (610 kB/s, 19 % of the ceiling): "
         "at_ceiling 'no'."),
    )
    for cl, sv, port, s_mss, seg, share, why in noopt:
        # without an MSS option the server sends the default MSS
        c = opts_flow(cap, 0.0, cl, sv, port, None, dict(mss=s_mss), seg=seg, n_seg=30,
                      c_win=65535, s_win=64240, gap_ms=2.0, ts=False, s_mss=s_mss)
        flows.append(expect(c, "not-requested", vantage="near-client", overrides=opts_expect(
            "none", "mss", None, None, ("no", "no", "no"), "wscale,sack,ts",
            "mss,wscale,sack,ts", "wscale,sack,ts", ceiling=True, default_mss=seg,
            at_ceiling="no"), why=why + why_common, cause=paced(seg, share)))

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
    write_capture(outdir, cap,
                  "Handshake options (tcpdiag.opts). Client 192.0.2.30 / 2001:db8:c1::30, "
                  "server 198.51.100.30:443 / [2001:db8:51::30]:443, capture point near the "
                  "client. 40801 TCP_NOOPT SYN (no options) over IPv4, 40802 the same over "
                  "IPv6, 40803 SYN-ACK without window scaling (window-limited at 65535), "
                  "40804 server timestamps stripped after 10 data segments, 40805 healthy "
                  "control, 40806 TFO cookie request + MP_CAPABLE on an AccECN SYN.",
                  flows, hosts=hosts)
