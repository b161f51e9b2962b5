"""One lab run of a module that keeps its own captures (timebudget.py, mech.py): run it in a
scratch folder, record it in logs/<scenario>.json, and keep its captures and expected
files (whose common head is made here) only when its self-check found no problem."""
import json
import os
import shutil
import sys
import tempfile


def run_and_keep(lab, name, out_dir, do_run, truths, problems, expected, record, label):
    """Runs scenario `name` with do_run(lab, name, cfg, tmp), derives its flows with
    truths(cfg, res), checks them with problems(cfg, res, flows) and logs record(res, flows)
    with the config and problems. Without problems, copies each capture to out_dir beside
    expected(name, cfg, res, flows, suffix), prints each flow's label(flow) and returns
    True; else returns False and leaves the captures in the scratch folder for a look."""
    cfg = lab.SCENARIOS[name]
    tmp = tempfile.mkdtemp(prefix=f"tdlab-{name}-")
    os.chmod(tmp, 0o755)
    try:
        res = do_run(lab, name, cfg, tmp)
        flows = truths(cfg, res)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    bad = problems(cfg, res, flows)
    os.makedirs(lab.LOGS, exist_ok=True)
    log = record(res, flows)
    log.update(config=cfg, problems=bad)
    with open(os.path.join(lab.LOGS, f"{name}.json"), "w") as f:
        json.dump(log, f, indent=1, sort_keys=True)
        f.write("\n")
    if bad:
        print(f"{name}: FAILED, captures left in {tmp}:", *bad, sep="\n  ", file=sys.stderr)
        return False
    os.makedirs(out_dir, exist_ok=True)
    for suffix in cfg["captures"]:
        base = f"lab-{name}{suffix}"
        shutil.copyfile(res["pcaps"][suffix], os.path.join(out_dir, base + ".pcap"))
        lab.write_expected(os.path.join(out_dir, base + ".expected.json"),
                           expected(name, cfg, res, flows, suffix))
    shutil.rmtree(tmp)
    print(f"{name}: ok in {res['run_s']} s; causes " + ", ".join(label(f) for f in flows))
    return True


def expected_file(name, cfg, suffix, nstat, nstat_keys, flows):
    """An expected file: its head (capture, made_by, story, flow count, vantage point, the
    run's non-zero nstat counters among nstat_keys) and its flows in tcp.stream order."""
    point = cfg["captures"][suffix]
    return {"capture": f"lab-{name}{suffix}.pcap", "made_by": f"captures/lab/lab.py {name}",
            "story": cfg["story"] + f"; capture: tcpdump -s 128 at the {point}",
            "flow_count": len(flows), "vantage_point": point,
            "nstat": {side: {k: v for k, v in nstat[side].items() if v and k in nstat_keys}
                      for side in ("client", "server")},
            "flows": sorted(flows, key=lambda x: x["select"]["tcp.stream"])}
