"""The expected-results files: one record per flow restating how it was built,
its diagnosis, and the standard "why" fragments (captures/README.md)."""

import json
import os

from rfc_tables import CODEPOINTS, data_class, data_sender


MADE_BY = "captures/crafted/make-crafted.py"


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


def write_capture(outdir, cap, story, flows=None, flow_count=None, hosts=None):
    """Writes the pcap and its expected file.  flow_count defaults to one tcp.stream
    per flow record; a capture without flows is robustness_only."""
    cap.write(os.path.join(outdir, cap.name + ".pcap"))
    doc = {"capture": cap.name + ".pcap", "made_by": MADE_BY, "story": story}
    if flows is None:
        doc["robustness_only"] = True
    else:
        doc["flow_count"] = len(flows) if flow_count is None else flow_count
        doc["flows"] = flows
        if hosts:
            doc["hosts"] = hosts
    with open(os.path.join(outdir, cap.name + ".expected.json"), "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")


# Standard "why" fragments
WHY_DATA = ("Codepoint counts restate the IP-ECN field written on each data segment "
            "(payload > 0, retransmissions included); <dir>.data follows docs/fields.md "
            "(negotiated = classic, accecn or accecn-classic).")
WHY_SNAP = " Records are cut at 128 bytes (snaplen); headers are complete."
