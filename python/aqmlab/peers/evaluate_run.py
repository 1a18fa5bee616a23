"""`benchmarks/peers/run --cases E...`: aqmlab evaluate's RFC 7928 scenarios in aqmlab
and ns-3 (ns3/evaluate.cc), metrics side by side (evaluate_cases.py has the cases and
the converter). Stdlib only: aqmlab runs in child processes.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
#: the directory holding the aqmlab package (python/ in a checkout, site-packages installed)
PACKAGES = HERE.parents[1]
CASES = HERE / "evaluate_cases.py"
NS3_SRC = HERE / "ns3" / "evaluate.cc"
sys.path.insert(0, str(HERE))
import evaluate_cases as ec  # noqa: E402  (imports aqmlab lazily only)
import history  # noqa: E402
from tables import ns3_build_dir  # noqa: E402

NS3_BIN = ns3_build_dir() / "evaluate"

#: table columns: (metric, kind of tolerance, format)
TABLE = [
    ("goodput_bps_main", None, ".4g"),
    ("goodput_bps_other", None, ".4g"),
    ("goodput_ratio", "pp", ".3f"),
    ("utilization", "pp", ".3f"),
    ("jain", "pp", ".3f"),
    ("delay_mean", "rel", ".4f"),
    ("delay_p95", "rel", ".4f"),
    ("loss_rate", "rel", ".4g"),
    ("loss_rate_main", "rel", ".4g"),
    ("loss_rate_other", "rel", ".4g"),
]
#: (main class, other class) shown per scenario
CLASS_PAIR = {
    "5.1.1": ("bulk", None),
    "5.2": ("cubic", "bulk"),
    "5.3.1": ("bulk", "udp"),
    "5.3.2": ("bulk", "udp"),
    "6": ("rtt", "ref"),
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def ensure_binary() -> Path | None:
    sources = (NS3_SRC, NS3_SRC.with_name("params.h"), NS3_SRC.with_name("build.sh"))
    if NS3_BIN.exists() and NS3_BIN.stat().st_mtime >= max(p.stat().st_mtime for p in sources):
        return NS3_BIN
    log("[peers] building the ns-3 evaluate program ...")
    r = subprocess.run(
        ["sh", str(HERE / "ns3" / "build.sh"), str(NS3_BIN), str(NS3_SRC)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if r.returncode != 0:
        log(r.stdout[-4000:])
        return None
    return NS3_BIN


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGES), env.get("PYTHONPATH")]))
    return env


def _last_json(text: str) -> dict | None:
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return None


def _result(sid: str, m: dict) -> dict:
    """A record's `result`: the metrics plus the history's column names."""
    main, other = CLASS_PAIR.get(sid, ("bulk", None))
    r = dict(m)
    r["goodput_bps_main"] = m.get(f"goodput_bps_{main}")
    r["goodput_bps_other"] = m.get(f"goodput_bps_{other}") if other else None
    r["loss_rate_main"] = m.get(f"class_loss_rate_{main}")
    r["loss_rate_other"] = m.get(f"class_loss_rate_{other}") if other else None
    r.update(
        drop_rate=m.get("loss_rate"),
        mean_delay=m.get("delay_mean"),
        goodput_mbps=(m.get("goodput_bps") or 0) / 1e6,
    )
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}


def run_cases(
    spec: str,
    sims: list[str],
    quick: bool,
    seed: int,
    timeout: float,
    run_measured: Callable,
    keep: str | None,
    queue_set: dict | None = None,
) -> list[dict]:
    binary = ensure_binary() if "ns3" in sims else None
    work = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="aqmlab-peers-E-"))
    work.mkdir(parents=True, exist_ok=True)
    records: list[dict] = []
    for name, sid, variant, aqm, ecn, profile in ec.select(spec):
        pt = ec.point(sid, variant, aqm, quick, seed, ecn)
        name = with_queue_set(name, pt, queue_set)
        name = name + ("-quick" if quick else "") + (f"-s{seed}" if seed != 1 else "")
        ptf = work / f"{name}.point.json"
        ptf.write_text(json.dumps(pt))
        # aqmlab's side in the case's profile (`-nsmode`: ns3); ns-3's side as it is
        aqf = work / f"{name}.aqmlab.point.json"
        aqf.write_text(json.dumps(dict(pt, profile=profile) if profile else pt))
        for sim in [s for s in ("aqmlab", "ns3") if s in sims]:
            rec: dict = {"case": name, "sim": sim, "status": "ok", "scenario": sid}
            if sim == "aqmlab":
                cmd = [sys.executable, str(CASES), "--aqmlab", str(aqf)]
                m = run_measured(cmd, timeout, env=_env())
                res = _last_json(m["stdout"]) if m["rc"] == 0 else None
            else:
                if binary is None:
                    continue
                pf = work / f"{name}.params"
                r = subprocess.run(
                    [sys.executable, str(CASES), "--params", str(ptf), str(pf)],
                    env=_env(),
                    capture_output=True,
                    text=True,
                )
                if r.returncode != 0:
                    log(r.stderr[-2000:])
                    continue
                cmd = [str(binary), str(pf)]
                m = run_measured(cmd, timeout)
                raw = _last_json(m["stdout"]) if m["rc"] == 0 else None
                res = None
                if raw is not None:
                    rf = work / f"{name}.ns3.json"
                    rf.write_text(json.dumps(raw))
                    r = subprocess.run(
                        [sys.executable, str(CASES), "--ns3", sid, str(pf), str(rf)],
                        env=_env(),
                        capture_output=True,
                        text=True,
                    )
                    res = _last_json(r.stdout)
                    if res is not None:
                        res["departures_total"] = raw["departures_total"]
                        res["arrivals"], res["drops"] = raw["arrivals"], raw["drops"]
            rec.update({k: m[k] for k in ("wall_s", "maxrss_mb", "cpu_s", "rc")})
            rec["command"] = " ".join(cmd)
            if res is None:
                rec["status"] = (
                    "timeout"
                    if m["timed_out"]
                    else (
                        f"failed (rc {m['rc']}): "
                        + (m["stderr"].strip().splitlines() or [""])[-1][:200]
                    )
                )
            else:
                rec["result"] = _result(sid, res)
            log(f"[peers] {name} / {sim}: {rec['status']}, {m['wall_s']:.2f} s")
            records.append(rec)
    return records


def _f(x, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def table(records: list[dict], markdown: bool = False) -> int:
    """Print aqmlab vs ns-3 per case and metric; the number of differences beyond the
    thresholds (2 points for ratios, utilization and Jain; 15% for delays and loss)."""
    by: dict[str, dict[str, dict]] = {}
    for r in records:
        by.setdefault(r["case"], {})[r["sim"]] = r
    diffs = 0
    if markdown:
        print("| case | metric | aqmlab | ns-3 | agreement |")
        print("|---|---|---|---|---|")
    else:
        print(f"{'case':26s} {'metric':18s} {'aqmlab':>10s} {'ns-3':>10s}  agreement")
    for case, d in by.items():
        aq = (d.get("aqmlab") or {}).get("result") or {}
        n3 = (d.get("ns3") or {}).get("result") or {}
        rows = [(met, kind, spec, aq.get(met), n3.get(met)) for met, kind, spec in TABLE]
        rows.append(
            (
                "wall_s",
                None,
                ".2f",
                (d.get("aqmlab") or {}).get("wall_s"),
                (d.get("ns3") or {}).get("wall_s"),
            )
        )
        for met, kind, spec, a, b in rows:
            if a is None and b is None:
                continue
            v = ec.verdict(kind, a, b) if kind else None
            diffs += v == "DIFF"
            if markdown:
                print(f"| {case} | {met} | {_f(a, spec)} | {_f(b, spec)} | {v or ''} |")
            else:
                print(f"{case:26s} {met:18s} {_f(a, spec):>10s} {_f(b, spec):>10s}  {v or ''}")
    return diffs


def parse_queue_set(spec: str | None) -> dict:
    """`--queue-set derandomize=false,target=0.02` as {key: value} (JSON scalars, else text)."""
    out: dict = {}
    for item in (spec or "").split(","):
        if not item.strip():
            continue
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"--queue-set: {item!r} is not KEY=VALUE")
        try:
            out[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            out[key.strip()] = text
    return out


def with_queue_set(name: str, pt: dict, queue_set: dict | None) -> str:
    """Set `queue_set`'s keys in the point's queue table; the case name with a
    +KEY=VALUE suffix per key."""
    pt["queue"].update(queue_set or {})
    return name + "".join(
        f"+{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in (queue_set or {}).items()
    )


def main(args, sims: list[str], run_measured: Callable, apt_install: Callable) -> int:
    """`run --cases E...`: run the cases, print the table, keep the records as asked."""
    label = args.label if args.label is not None else (Path(args.json).stem if args.json else "")
    context = history.context(label) if args.record else {}
    if "ns3" in sims and not Path("/usr/include/ns3/core-module.h").exists():
        apt_install("libns3-dev")
    records = run_cases(
        args.cases,
        sims,
        args.quick,
        args.seed if args.seed is not None else 1,
        args.timeout or 3600,
        run_measured,
        args.keep,
        parse_queue_set(getattr(args, "queue_set", None)),
    )
    diffs = table(records, args.markdown)
    print(
        f"\n{diffs} difference(s) beyond 2 points (ratios, utilization, Jain) / 15% (delays, loss)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    if args.record:
        history.append(Path(args.record), records, context)
        log(f"[peers] {len(records)} row(s) appended to {args.record}")
    return 0
