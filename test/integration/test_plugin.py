"""The plugin as Wireshark sees it: registration, documented fields, preferences."""
import re

from tshark import ROOT, run


def registered_fields():
    out = run(["-G", "fields"]).stdout
    return {line.split("\t")[2]: line.split("\t") for line in out.splitlines()
            if line.startswith(("F\t", "P\t")) and "tcpdiag" in line}


def documented_fields():
    text = (ROOT / "docs" / "fields.md").read_text()
    names = set()
    for cell in re.findall(r"`(tcpdiag\.[a-z0-9_.]+)`", text):
        names.add(cell)
    # "`tcpdiag.ecn.c2s.not_ect` … `.ect0`" rows abbreviate siblings
    for base in ("c2s", "s2c"):
        for cp in ("not_ect", "ect0", "ect1", "ce"):
            names.add(f"tcpdiag.ecn.{base}.{cp}")
    return {n for n in names if not n.endswith(".*")}


def test_plugin_is_loaded_with_one_protocol():
    # (-G plugins would also run every extcap binary, which hangs under the ASan preload)
    protocols = {line.split("\t")[2] for line in run(["-G", "protocols"]).stdout.splitlines()}
    assert "tcpdiag" in protocols, "the C plugin did not load"
    # the per-host rules are fields of tcpdiag itself: one spelling in every column
    assert {p for p in protocols if p.startswith("tcpdiag")} == {"tcpdiag"}


def test_every_documented_field_is_registered():
    fields = registered_fields()
    missing = documented_fields() - set(fields)
    assert not missing, f"documented but not registered: {sorted(missing)}"


def test_every_registered_field_is_documented():
    internal = {"tcpdiag"}      # the protocol itself
    undocumented = set(registered_fields()) - documented_fields() - internal
    assert not undocumented, f"registered but not in docs/fields.md: {sorted(undocumented)}"


def test_preferences_are_registered():
    out = run(["-G", "currentprefs"]).stdout
    for pref in ("tcpdiag.capture_position", "tcpdiag.vantage_dominance_pct",
                 "tcpdiag.vantage_min_delay_us", "tcpdiag.ecn_slowdown_pct",
                 "tcpdiag.plateau_min_rounds", "tcpdiag.plateau_band_pct", "tcpdiag.sender_warn_mss",
                 "tcpdiag.collapse_mss", "tcpdiag.collapse_min_rounds", "tcpdiag.stall_min_ms",
                 "tcpdiag.stall_min_flows", "tcpdiag.max_flows", "tcpdiag.budget_min_share_pct",
                 "tcpdiag.budget_min_cost_ms", "tcpdiag.long_rtt_ms", "tcpdiag.reference_rtt_ms"):
        assert pref in out, pref
