"""Vocabulary and RFC tables shared by make-crafted.py and check-crafted.py.

Only names, RFC rows and the docs/fields.md class rules live here, nothing
about how a capture was built or how tshark shows it.  The generator still
writes every flow's outcome by hand from the RFC row named in its "why".  The
checker still derives every fact from tshark's plain fields.  Both read the
same tables here and apply the same rules.
"""

# IP-ECN codepoints (RFC 3168 §5): name -> value of the 2-bit field, and back
ECN = {"not-ect": 0, "ect1": 1, "ect0": 2, "ce": 3}
ECN_NAME = {v: k for k, v in ECN.items()}
CODEPOINTS = ("not_ect", "ect0", "ect1", "ce")  # tcpdiag.ecn.<dir>.<cp> field suffixes

# SYN-ACK (AE,CWR,ECE) an AccECN server sends to feed back the SYN's IP-ECN
# field (RFC 9768 §3.1.2 Table 2, top block), and its reading by the client.
ACCECN_SYNACK = {"not-ect": (0, 1, 0), "ect1": (0, 1, 1),
                 "ect0": (1, 0, 0), "ce": (1, 1, 0)}
ACCECN_FEEDBACK = {v: k for k, v in ACCECN_SYNACK.items()}

# Outcome of the other SYN-ACK rows; a SYN-ACK not listed is "invalid".
# A classic ECN-setup SYN (0,1,1): RFC 3168 §6.1.1, §6.1.1.2.
CLASSIC_SYNACK_OUTCOME = {(0, 0, 1): "classic", (0, 0, 0): "declined",
                          (0, 1, 1): "reflected"}
# An AccECN SYN (1,1,1), besides ACCECN_SYNACK ("accecn"): RFC 9768 Table 2.
ACCECN_SYNACK_OUTCOME = {(0, 0, 1): "accecn-classic", (0, 0, 0): "declined",
                         (1, 1, 1): "reflected"}

NEGOTIATED = ("classic", "accecn", "accecn-classic")


def data_class(outcome, counts):
    """tcpdiag.ecn.<dir>.data as docs/fields.md defines it."""
    if outcome == "unknown":
        return "unknown"
    if sum(counts.values()) == 0:
        return "no-data"
    marked = counts["ect0"] + counts["ect1"] + counts["ce"]
    if outcome in NEGOTIATED:
        return "ect" if marked else "unmarked"
    return "unnegotiated-ect" if marked else "not-ect"


def data_sender(client_sent, server_sent):
    """tcpdiag.flow.data_sender from whether each side sent payload."""
    return {(True, True): "both", (True, False): "client",
            (False, True): "server", (False, False): "none"}[
                (bool(client_sent), bool(server_sent))]
