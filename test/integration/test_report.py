"""tcpdiag --report: the HTML page as a reader gets it. Loaded in a real browser
(Debian's chromium, headless: ./run installs it, so a missing browser fails), parsed by
a strict HTML parser, free of any URL; the seed-story captures' first finding is their
story (the cause their expected file gives the story's flow, written from how the
capture was made); every figure equals the NDJSON field it names; each slow flow's
time budget bar equals its tcpdiag.time fields; text from outside (file and folder
names) creates no element or attribute; folders, --merge and -j."""
import decimal
import json
import re
import shutil
import subprocess

import html5lib
import pytest

from command import run
from tshark import CAPTURES, fields

# The seed stories (captures/README.md, captures/lab/README.md): the capture and the
# flow its story is about, selected as its expected file selects it.
SEED_STORIES = {
    # the ECN lottery: the one connection of 20 that negotiated ECN
    "lottery": ("lab-ecn-1-of-n.pcap", {"tcp.stream": 6}),
    # one CUBIC download under 30 % CE marks: the window collapses to its floor
    "collapse": ("lab-cc-cubic-ecn-collapse-client.pcap", {"tcp.stream": 0}),
    # the server drops all it sends for 4 s under six downloads
    "host-stall": ("lab-host-stall-client.pcap", {"tcp.stream": 0}),
    # tcpdiag issue 6: the illumos sender holding 5 MSS after a retransmission
    "illumos": ("crafted-flight.pcap", {"tcp.port": 40901}),
    # issues 5 and 6: illumos LSO, capped at the 5 MSS flight
    "offload": ("crafted-offload.pcap", {"tcp.port": 41001}),
    # the server's stack leaves out window scaling, SACK and timestamps
    "missing-options": ("lab-opts-server-omits.pcap", {"tcp.stream": 0}),
}
SCREENSHOTS = ("lottery", "collapse", "host-stall", "illumos")
# A scheme followed by white space is prose ("sending new data: the request..."), not a URL.
URL = re.compile(r"(?i)\b(?:https?|ftp|file|data|javascript):(?!\s)|//[\w.-]+\.\w|url\(|@import|<script|<link|"
                 r"<img|<iframe|<object|<embed|\bsrc=")


def chromium(*args, tmp_path):
    browser = shutil.which("chromium")
    assert browser, "chromium is missing: ./run installs it (DEBIAN_PACKAGES)"
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path}/profile",
                           *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def report(tmp_path, *inputs, options=(), name="report.html"):
    out = tmp_path / name
    run(["--report", out, *options, *inputs])
    return out


def parse(path):
    """The page through html5lib in strict mode: any parse error fails."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())


def story_stream(capture, select):
    if "tcp.stream" in select:
        return select["tcp.stream"]
    port = str(select["tcp.port"])
    streams = {r["tcp.stream"] for r in fields(CAPTURES / capture, ["tcp.stream", "tcp.srcport", "tcp.dstport"])
               if port in (r["tcp.srcport"], r["tcp.dstport"])}
    assert len(streams) == 1, streams
    return int(streams.pop())


def expected_cause(capture, select):
    exp = json.loads((CAPTURES / capture).with_suffix(".expected.json").read_text())
    [flow] = [f for f in exp["flows"] if f["select"] == select]
    return flow["expect"]["tcpdiag.diag.cause"]


def text_of(element):
    return "".join(element.itertext())


def named(root, tag):
    """Elements by local name: the parser puts <svg> and what it holds in the SVG namespace."""
    return [e for e in root.iter() if isinstance(e.tag, str) and e.tag.rsplit("}", 1)[-1] == tag]


def by_class(root, tag, cls):
    return [e for e in named(root, tag) if cls in (e.get("class") or "").split()]


@pytest.fixture(scope="module")
def seed_reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("seed")
    return {story: report(tmp, CAPTURES / capture, name=f"{story}.html")
            for story, (capture, _) in SEED_STORIES.items()}


@pytest.mark.parametrize("story", sorted(SEED_STORIES))
def test_first_finding_is_the_story(seed_reports, story):
    capture, select = SEED_STORIES[story]
    root = parse(seed_reports[story])
    findings = by_class(root, "li", "finding")
    assert findings, story
    first = findings[0]
    assert first.get("data-cause") == expected_cause(capture, select)
    # the story's flow is the first finding's: charted there, or on its timeline
    stream = story_stream(capture, select)
    charted = {int(f.get("data-stream")) for f in by_class(first, "figure", "chart") if f.get("data-stream")}
    assert stream in charted or f"stream {stream}" in text_of(first), text_of(first)[:500]
    # the answer first: the capture's headline before any finding
    [headline] = by_class(root, "p", "headline")
    assert re.match(r"diagnosis of \d+ flows?: \d+ slow", text_of(headline))


@pytest.mark.parametrize("story", sorted(SEED_STORIES))
def test_every_slow_flow_has_its_chart(seed_reports, story):
    """One chart per slow flow (a host stall's flows share one timeline), drawn from
    what was recorded: a line with points, or the timeline's rows."""
    capture, _ = SEED_STORIES[story]
    root = parse(seed_reports[story])
    slow = [r for r in map(json.loads, run(["-F", "json", "--slow", CAPTURES / capture]).stdout.splitlines())
            if r["record"] == "flow"]
    charts = by_class(root, "figure", "chart")
    charted = {int(f.get("data-stream")) for f in charts if f.get("data-stream")}
    stalled = [r["tcp.stream"] for r in slow if r["tcpdiag.diag.cause"] == "host-stall"]
    for r in slow:
        if r["tcpdiag.diag.cause"] not in ("host-stall", "ecn-blackhole"):
            assert r["tcp.stream"] in charted, r["tcp.stream"]
    for chart in charts:
        [svg] = named(chart, "svg")
        if chart.get("data-cause") == "host-stall":
            rows = [t for t in named(svg, "text") if re.fullmatch(r"stream \d+", t.text or "")]
            assert sorted(int(t.text.split()[1]) for t in rows) == sorted(stalled)
            assert by_class(svg, "rect", "silence")
        else:
            flight = by_class(svg, "polyline", "series")
            assert flight and len(flight[0].get("points").split()) >= 4


def test_figures_equal_the_fields(seed_reports):
    """Every figure carries its field's name and exact value: the NDJSON's."""
    checked = 0
    for story, (capture, _) in SEED_STORIES.items():
        records = {r["tcp.stream"]: r for r in (json.loads(line) for line in
                                               run(["-F", "json", CAPTURES / capture]).stdout.splitlines())
                   if r["record"] == "flow"}
        for ul in by_class(parse(seed_reports[story]), "ul", "figures"):
            record = records[int(ul.get("data-stream"))]
            for span in by_class(ul, "span", "figure"):
                name, value = span.get("data-field"), span.get("data-value")
                field = record[span.get("data-dir")][name] if span.get("data-dir") else record[name]
                if isinstance(field, str):
                    assert value == field
                elif isinstance(field, float) and name in ("tcpdiag.diag.lost", "tcpdiag.flow.irtt",
                                                           "tcpdiag.host.stall_duration", "tcpdiag.host.stall_waited"):
                    assert int(value) == round(field * 1e9), (name, value, field)      # durations: ns
                else:
                    assert float(value) == pytest.approx(field, rel=1e-15, abs=0), (name, value, field)
                checked += 1
    assert checked >= 60


@pytest.mark.parametrize("story", sorted(SEED_STORIES))
def test_valid_and_self_contained(seed_reports, story):
    page = seed_reports[story].read_text()
    parse(seed_reports[story])          # strict: raises on any parse error
    assert page.startswith("<!DOCTYPE html>")
    assert not URL.search(page), URL.search(page)
    root = parse(seed_reports[story])
    for element in root.iter():
        assert not any(a.startswith("on") for a in element.keys()), element.tag
        if element.get("href") is not None:
            assert element.get("href").startswith("#")


@pytest.mark.parametrize("story", sorted(SEED_STORIES))
def test_browser_shows_findings_and_charts(seed_reports, story, tmp_path):
    page = seed_reports[story]
    dom = chromium("--dump-dom", page.as_uri(), tmp_path=tmp_path)
    root = html5lib.parse(dom, namespaceHTMLElements=False)
    source = parse(page)
    assert len(by_class(root, "li", "finding")) == len(by_class(source, "li", "finding")) >= 1
    charts = by_class(root, "figure", "chart")
    assert len(charts) == len(by_class(source, "figure", "chart")) >= 1
    assert all(len(named(c, "svg")) == 1 for c in charts)
    bars = by_class(root, "figure", "budget")
    assert len(bars) == len(by_class(source, "figure", "budget")) >= 1
    assert all(len(named(b, "svg")) == 1 for b in bars)
    if story in SCREENSHOTS:
        png = tmp_path / f"{story}.png"
        chromium(f"--screenshot={png}", "--window-size=1400,2000", page.as_uri(), tmp_path=tmp_path)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000


def test_hostile_names_create_nothing(tmp_path):
    """A file and a folder named to inject markup: the page shows the names as text,
    the browser's DOM has no element or attribute they made."""
    folder = tmp_path / '"><svg onload=alert(2)>'
    folder.mkdir()
    hostile = folder / "<img src=x onerror=alert(1)>.pcap"
    shutil.copy(CAPTURES / "lab-ecn-1-of-n.pcap", hostile)
    shutil.copy(CAPTURES / "lab-no-ecn.pcap", folder / "a&b'c.pcap")
    page = report(tmp_path, folder)
    source = parse(page)
    names = [text_of(h) for h in named(source, "h2")]
    assert str(hostile) in names and str(folder / "a&b'c.pcap") in names
    dom = chromium("--dump-dom", page.as_uri(), tmp_path=tmp_path)
    for root in (source, html5lib.parse(dom, namespaceHTMLElements=False)):
        assert not named(root, "img") and not named(root, "script")
        for element in root.iter():
            assert not any(a.startswith("on") for a in element.keys()), (element.tag, element.keys())
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom


def test_folder_ranks_across_captures_first(tmp_path):
    """Several captures: the ranking across them by time lost, then a section each
    in the order given; -j changes nothing."""
    inputs = [CAPTURES / "lab-ecn-1-of-n.pcap", CAPTURES / "lab-cc-cubic-ecn-collapse-client.pcap",
              CAPTURES / "lab-no-ecn.pcap"]
    one = report(tmp_path, *inputs, name="one.html")
    two = report(tmp_path, *inputs, options=["-j", "2"], name="two.html")
    assert one.read_bytes() == two.read_bytes()
    root = parse(one)
    sections = named(root, "section")
    assert sections[0].get("class") == "ranking"
    assert [text_of(named(s, "h2")[0]) for s in sections[1:]] == [str(p) for p in inputs]
    lost = [int(r.get("data-lost-ns")) for r in by_class(root, "tr", "ranked")]
    assert len(lost) == 2 and lost == sorted(lost, reverse=True)
    # the collapse lost 12.8 s, the lottery 1.4 s (their expected files: both window-collapse)
    assert [r.get("data-cause") for r in by_class(root, "tr", "ranked")] == ["window-collapse"] * 2
    assert "lab-cc-cubic-ecn-collapse-client.pcap" in text_of(by_class(root, "tr", "ranked")[0])


def test_merge_is_one_section(tmp_path):
    inputs = [CAPTURES / "lab-ecn-1-of-n.pcap", CAPTURES / "lab-no-ecn.pcap"]
    root = parse(report(tmp_path, *inputs, options=["--merge"]))
    [section] = by_class(root, "section", "capture")
    assert text_of(named(section, "h2")[0]) == f"{inputs[0]} and 1 more files merged"
    assert not by_class(root, "section", "ranking")


def test_every_bundled_capture_in_one_page(tmp_path):
    """All bundled captures (hostile and damaged ones included) as one folder, walked
    as the command walks it (the lab's captures/lab/next/ too): a valid page of a few
    MB at most, a section each."""
    page = report(tmp_path, CAPTURES)
    root = parse(page)
    assert len(by_class(root, "section", "capture")) == len(list(CAPTURES.rglob("*.pcap")))
    assert page.stat().st_size < 4_000_000
    assert not URL.search(page.read_text())


def test_report_refuses_other_outputs(tmp_path):
    for extra in (["-F", "json"], ["--summary"], ["--slow"], ["--flows"]):
        proc = run(["--report", tmp_path / "x.html", *extra, CAPTURES / "lab-no-ecn.pcap"], check=False)
        assert proc.returncode == 2 and "--report" in proc.stderr
    assert not (tmp_path / "x.html").exists()
    proc = run(["--report", tmp_path / "no-such-dir" / "x.html", CAPTURES / "lab-no-ecn.pcap"], check=False)
    assert proc.returncode == 3 and "cannot write the report" in proc.stderr


def test_stall_timeline_shows_each_wait(tmp_path):
    """lab-host-stall-late-syn-client: six paced downloads and a seventh connection whose
    SYN-ACK the 4 s drop swallowed, answered after the client's SYN retry 1 s later
    (Linux's initial retransmission timeout, RFC 6298). One silence shaded, seven rows,
    each with its wait; the late connection's is that retry's second and its round trip."""
    capture = "lab-host-stall-late-syn-client.pcap"
    root = parse(report(tmp_path, CAPTURES / capture))
    [timeline] = [c for c in by_class(root, "figure", "chart") if c.get("data-cause") == "host-stall"]
    [svg] = named(timeline, "svg")
    assert len(by_class(svg, "rect", "silence")) == 1
    rows = [t.text for t in named(svg, "text") if re.fullmatch(r"stream \d+", t.text or "")]
    assert sorted(rows) == [f"stream {n}" for n in range(7)]
    waits = [t.text for t in named(svg, "text") if (t.text or "").startswith("waited ")]
    assert len(waits) == 7 == len(by_class(svg, "line", "wait"))
    late = waits[rows.index("stream 6")]
    seconds = float(late.split()[1]) / (1000 if late.endswith(" ms") else 1)
    assert 0.95 <= seconds <= 1.2, late


# The time budget's parts in the order the bar draws them (issue 29: setup, the
# client's and the server's waits, transfer, stalls, idle).
BUDGET_PARTS = ("setup", "client_wait", "server_wait", "transfer", "stall", "think", "idle")
BAR_WIDTH = 740
# Captures with slow flows of every kind of finding: the seed stories, ECN blackholes
# (no chart), five causes in one file, and the lab's zero window, tail loss and a
# host stall of 7 flows.
BUDGET_CAPTURES = sorted({capture for capture, _ in SEED_STORIES.values()} | {
    "crafted-fallback.pcap", "crafted-flight.pcap", "lab/next/lab-tb-zero-window-client.pcap",
    "lab/next/lab-tb-tail-loss-client.pcap", "lab/next/lab-tb-accept-slow-burst-client.pcap"})


def exact_records(capture, options=()):
    """The NDJSON flow records by stream, durations parsed exactly (decimal seconds)."""
    out = run(["-F", "json", *options, CAPTURES / capture]).stdout
    return {r["tcp.stream"]: r for r in (json.loads(line, parse_float=decimal.Decimal) for line in out.splitlines())
            if r["record"] == "flow"}


def ns(seconds):
    nanoseconds = seconds * 10**9
    assert nanoseconds == int(nanoseconds), seconds
    return int(nanoseconds)


@pytest.fixture(scope="module")
def budget_reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("budget")
    return {capture: parse(report(tmp, CAPTURES / capture, name=capture.replace("/", "-") + ".html"))
            for capture in BUDGET_CAPTURES}


@pytest.mark.parametrize("capture", BUDGET_CAPTURES)
def test_every_slow_flow_has_its_budget_bar(budget_reports, capture):
    """One time budget bar per slow flow (the command's --slow records of the same
    capture), whatever its chart: a host stall's flows share a timeline and an ECN
    blackhole has no chart, but each has its bar. These captures' findings hold fewer
    flows than the report charts per finding (12)."""
    slow = exact_records(capture, options=["--slow"])
    assert slow and len(slow) <= 12
    bars = [int(b.get("data-stream")) for b in by_class(budget_reports[capture], "figure", "budget")]
    assert sorted(bars) == sorted(slow)


@pytest.mark.parametrize("capture", BUDGET_CAPTURES)
def test_budget_bars_equal_the_fields(budget_reports, capture):
    """Each bar's segments are the flow's tcpdiag.time parts that took time, in the
    budget's order, their exact ns the NDJSON's, each as wide as its share of the
    duration, together the whole bar; each says what it is on hover."""
    records = exact_records(capture)
    for bar in by_class(budget_reports[capture], "figure", "budget"):
        record = records[int(bar.get("data-stream"))]
        duration = ns(record["tcpdiag.time.duration"])
        assert int(bar.get("data-duration-ns")) == duration > 0
        assert int(bar.get("data-active-ns")) == ns(record["tcpdiag.time.active"])
        [svg] = named(bar, "svg")
        segments = by_class(svg, "g", "segment")
        shown = [(g.get("data-part"), int(g.get("data-ns"))) for g in segments]
        taken = [(part, ns(record[f"tcpdiag.time.{part}"])) for part in BUDGET_PARTS]
        assert shown == [(part, took) for part, took in taken if took > 0]
        widths = []
        for g, (_, took) in zip(segments, shown):
            [rect] = by_class(g, "rect", "part")
            widths.append(float(rect.get("width")))
            assert widths[-1] == pytest.approx(BAR_WIDTH * took / duration, abs=0.051)
            [title] = named(g, "title")
            assert title.text.split(":")[0] in text_of(svg)     # its words, in the legend too
        assert sum(widths) == pytest.approx(BAR_WIDTH, abs=0.051 * len(widths))
        idle = [g for g in segments if g.get("data-part") == "idle"]
        assert all(by_class(g, "path", "hatch") for g in idle)


def test_server_delay_bar_shows_the_servers_think_time(tmp_path):
    """Ground truth, captures/lab/next/README.md (tb-server-delay): a server that thinks
    1 s before each reply, 2 connections of 3 requests each, server waits 1.001 to
    1.005 s: each connection's bar shows at least 2.9 s of server wait, and stream 0
    has one."""
    root = parse(report(tmp_path, CAPTURES / "lab" / "next" / "lab-tb-server-delay-client.pcap"))
    bars = {int(b.get("data-stream")): b for b in by_class(root, "figure", "budget")}
    for bar in bars.values():
        parts = {g.get("data-part"): int(g.get("data-ns")) for g in by_class(bar, "g", "segment")}
        assert parts.get("server_wait", 0) >= 2_900_000_000, parts
    assert 0 in bars, sorted(bars)


# Issue 30's mechanisms (captures/lab/mech/README.md: the kernel's numbers per scenario).
MECH = CAPTURES / "lab" / "mech"


def mech_truth(capture, cause):
    """The expected file's flow of that cause (written from how the capture was made):
    its tcp.stream, its truth, and the file's other flows."""
    exp = json.loads((MECH / capture).with_suffix(".expected.json").read_text())
    [flow] = [f for f in exp["flows"] if f["expect"]["tcpdiag.diag.cause"] == cause]
    return flow["select"]["tcp.stream"], flow["truth"], [f for f in exp["flows"] if f is not flow]


def mech_chart(tmp_path, capture, cause, stream):
    """The chart of that flow in the report of the capture: its dotted line's points
    (SVG coordinates, y down) and the y of its levels by class."""
    root = parse(report(tmp_path, MECH / capture))
    [chart] = [c for c in by_class(root, "figure", "chart")
               if c.get("data-cause") == cause and int(c.get("data-stream")) == stream]
    [svg] = named(chart, "svg")
    [line] = by_class(svg, "polyline", "series")
    points = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
    assert len(by_class(svg, "path", "dots")) == 1
    levels = {cls: float(l.get("y1")) for l in by_class(svg, "line", "level") if named(l, "title")
              for cls in l.get("class").split() if cls != "level"}       # the plot's, not the legend's
    return svg, points, levels


@pytest.mark.parametrize("vantage", ["client", "router", "server"])
def test_nagle_chart_shows_each_hold(tmp_path, vantage):
    """mech-nagle: 50 requests written in two parts with Nagle on; the server delayed its
    ACK of the first part 49 times (server_DelayedACKs; the first was quick-ACKed), a
    pure ACK ~42 ms late each time. The chart has a dot per hold, 49, every one above
    the path's round trip (the second part waits at least for the ACK's round trip),
    and their median above the round trip plus the delay that makes an ACK late."""
    capture = f"lab-mech-nagle-{vantage}.pcap"
    stream, truth, _ = mech_truth(capture, "nagle-delayed-ack")
    _, points, levels = mech_chart(tmp_path, capture, "nagle-delayed-ack", stream)
    assert len(points) == truth["nagle"]["server_DelayedACKs"] == 49
    heights = sorted(y for _, y in points)
    assert heights[-1] < levels["path"]                  # SVG y grows downwards
    assert heights[len(heights) // 2] < levels["late"] < levels["path"]


def test_queueing_chart_shows_each_exchange(tmp_path):
    """mech-bloat at the client: the interactive flow's 12 exchanges through a queue the
    download (the other flow, port 5002) kept full, its frames waiting 170.5 ms at the
    least (sojourn_min_ms) on a 20 ms path. The chart has a dot per exchange, 12, every
    one above the line from which a round trip counts as queued, and the download's
    life shaded behind."""
    capture = "lab-mech-bloat-client.pcap"
    stream, truth, others = mech_truth(capture, "queueing-delay")
    svg, points, levels = mech_chart(tmp_path, capture, "queueing-delay", stream)
    assert len(points) == len(truth["exchanges"]) == 12
    assert truth["queue"]["sojourn_min_ms"] / 1e3 > 4 * truth["path_rtt_s"]
    assert all(y < levels["late"] < levels["path"] for _, y in points)
    [filler] = [f for f in others if f["expect"]["tcpdiag.flow.client_port"] ==
                truth["queue"]["queue_filled_by"]["client_port"]]
    [span] = by_class(svg, "rect", "span")
    assert f"stream {filler['select']['tcp.stream']} " in text_of(span)


def test_slowest_exchanges_under_the_budget_bar(tmp_path):
    """lab-tb-server-delay-client: the server sleeps 1 s before each of its 3 replies per
    connection (its log's config). Under each slow flow's budget bar, its exchanges,
    the most active time first, each row the command's exchange record for that frame
    (its values exact, in ns), and each server time the sleep."""
    pcap = CAPTURES / "lab" / "next" / "lab-tb-server-delay-client.pcap"
    config = json.loads((CAPTURES / "lab" / "logs" / "tb-server-delay.json").read_text())["config"]
    records = {(r["tcp.stream"], r["tcpdiag.exchange.frame"]): r
               for r in map(json.loads, run(["-F", "json", pcap]).stdout.splitlines()) if r["record"] == "exchange"}
    tables = by_class(parse(report(tmp_path, pcap)), "table", "exchanges")
    assert len(tables) == config["clients"]
    for table in tables:
        stream = int(table.get("data-stream"))
        rows = [{td.get("data-field"): int(td.get("data-value")) for td in named(tr, "td")}
                for tr in named(table, "tr")[1:]]
        assert len(rows) == min(3, config["requests"])
        actives = [row["tcpdiag.exchange.active"] for row in rows]
        assert actives == sorted(actives, reverse=True)
        for row in rows:
            record = records[(stream, row["tcpdiag.exchange.frame"])]
            for name, value in row.items():
                expected = record[name]
                assert value == (round(decimal.Decimal(str(expected)) * 10**9) if isinstance(expected, float)
                                 else expected), name
            assert row["tcpdiag.exchange.server_time"] >= (config["think"] - 0.010) * 1e9
