"""Every benchmark on one page: ``benchmarks/results/*.json`` -> ``benchmarks/RESULTS.md``.

    python benchmarks/report.py [--results benchmarks/results] [--out benchmarks/RESULTS.md]

Each bench script writes its figures to ``benchmarks/results/<name>.json``, stamped with when,
at which commit and on which machine it ran (``benchmarks/provenance.py``). Each benchmark
registers its section in its own module of ``benchmarks/sections/`` (the JSON it reads, its
goals, its renderer: :class:`sections.Section`); this module only walks that registry and lays
the page out: when it was put together, a table of contents with each benchmark's headline
against its goals, then one section per benchmark with the date, commit and machine its JSON
records and the command that measures it again. It only reads: nothing is measured here.
``make bench`` runs every benchmark and then this; ``make bench-report`` runs this alone.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import re
import subprocess
import sys
import time
from pathlib import Path

import sections
from provenance import ROOT, git_commit
from sections import Row, Section, duration

RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "benchmarks" / "RESULTS.md"

# How long `make bench` takes on the 2-core development machine, as the Makefile and the README
# say it (tests/repo/test_bench_report.py checks that the three agree). From the recorded runs: QSG
# engine ~11 min (its stamps run 21:02 to 21:12, after ~40 s of (a)), pairwise ~1 min, grid
# ~7 min (410 s recorded), crossover ~10 min (611 s of fits), preparation ~5 min (149 s to
# generate, 99 s to prepare, 42 s to decompress), NPSVOR scale ~5 min at its default
# --max-size 6000 (275 s of fits up to 6,000 rows), backends ~3 min: about 42 minutes.
MAKE_BENCH_TIME = "about 45 minutes"
# The preparation benchmark's generated 3.7 GB gzip file, its verified copy in the data cache
# and the 1.2 GB of prepared float32 arrays exist at once.
MAKE_BENCH_DISK = "up to 9 GB of temporary disk"


# -- the registry --------------------------------------------------------------------------------

def registered() -> tuple[Section, ...]:
    """Every section registered in ``benchmarks/sections/`` (a module's ``SECTION``), in page
    order.

    Modules whose name starts with ``_`` are helpers, not sections. A module without
    ``SECTION``, or two sections reading one JSON, are errors rather than a page that silently
    lacks a benchmark."""
    found: dict[str, Section] = {}
    for module in sorted(pkgutil.iter_modules(sections.__path__), key=lambda m: m.name):
        if module.name.startswith("_"):
            continue
        section = getattr(importlib.import_module(f"sections.{module.name}"), "SECTION", None)
        if not isinstance(section, Section):
            raise TypeError(f"benchmarks/sections/{module.name}.py registers no SECTION")
        if section.name in found:
            raise ValueError(f"two sections read {section.file}: {found[section.name].title!r} "
                             f"and {section.title!r}")
        found[section.name] = section
    return tuple(sorted(found.values(), key=lambda s: (s.order, s.name)))


SECTIONS = registered()
BY_NAME = {s.name: s for s in SECTIONS}
SEPARATE = [
    ("python benchmarks/bench_profiles.py", "what `--profile quick` saves and changes on the "
     "offline twins: the table under \"Profiles\" in the README (a few minutes)"),
    ("python benchmarks/bench_estimate.py --out benchmarks/ESTIMATE.md",
     "the dry run's cost estimate against measured time on the offline twins: "
     "`benchmarks/ESTIMATE.md` (some twins read the development data)")]


# -- the page ------------------------------------------------------------------------------------

def _slug(title: str) -> str:
    """The anchor a Markdown viewer gives a heading (GitHub's rule)."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def _stamps(r: Row, key: str) -> list[str]:
    """Every value of ``key`` at the top of ``r`` and one level down (bench_qsg stamps each
    part it measured, as parts can be run apart), in order, each once."""
    found = [r.get(key)] + [v.get(key) for v in r.values() if isinstance(v, dict)]
    return sorted({str(v) for v in found if v})


def _span(dates: list[str]) -> str:
    if len(dates) < 2:
        return dates[0] if dates else ""
    first, last = dates[0], dates[-1]
    same_day = first[:10] == last[:10]
    return f"{first} to {last[11:] if same_day else last}"


def _committed(path: Path) -> str:
    """'commit <sha> of <date>' that brought ``path``'s current content, or '' when the file has
    changes no commit holds (or no git)."""
    try:
        changed = subprocess.run(["git", "status", "--porcelain", "--", str(path)], cwd=ROOT,
                                 text=True, capture_output=True, timeout=10).stdout.strip()
        log = subprocess.run(["git", "log", "-1", "--format=%h %cd", "--date=format:%Y-%m-%d "
                              "%H:%M", "--", str(path)], cwd=ROOT, text=True,
                             capture_output=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    if changed or not log:
        return ""
    sha, when = log.split(" ", 1)
    return f"commit {sha} of {when}"


def _took(r: Row) -> float | None:
    """Recorded duration of the run: its ``bench_s``, or the sum of its parts' (bench_grid)."""
    if isinstance(r.get("bench_s"), (int, float)):
        return float(r["bench_s"])
    parts = [v["bench_s"] for v in r.values() if isinstance(v, dict) and "bench_s" in v]
    return float(sum(parts)) if parts else None


def provenance_line(r: Row, path: Path) -> str:
    """When, at which commit and on what machine, as the JSON records it; what it lacks, said."""
    when, shas = _span(_stamps(r, "measured_at")), _stamps(r, "git_sha")
    committed = _committed(path)
    missing = [what for what, have in (("date", when), ("commit", shas)) if not have]
    parts = [f"Measured {when}" if when else "Measured (date not recorded)"]
    if shas:
        parts.append(f"at commit {', '.join(shas)}")
    machine = r.get("machine")
    cores = r.get("cpus") or r.get("cores")
    if machine:
        cpu = f", {r['cpu']}" if r.get("cpu") else ""
        parts.append(f"on {machine}{cpu}" + (f", {cores} cores" if cores else ""))
    else:
        missing.append("machine")
    versions = ", ".join(f"{name} {r[key]}" for key, name in (
        ("python", "Python"), ("numpy", "numpy"), ("numba", "numba")) if r.get(key))
    text = " ".join(parts) + (f" ({versions})" if versions else "") + "."
    load = r.get("load_average_start")
    if load:
        end = r.get("load_average_end")
        text += (f" Load average {load[0]:.1f} at the start" +
                 (f", {end[0]:.1f} at the end" if end else "") + ".")
    took = _took(r)
    text += f" Took {duration(took)}." if took is not None else ""
    if missing:
        listed = missing[0] if len(missing) == 1 else (", ".join(missing[:-1]) + " or "
                                                        + missing[-1])
        text += f" Its JSON does not record the {listed}"
        text += (f"; the figures came in {committed}." if committed else ".")
    return text


def _shown(path: Path) -> str:
    """``path`` relative to the repository when inside it."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def render(results_dir: Path = RESULTS, now: str | None = None,
           registry: tuple[Section, ...] = SECTIONS) -> tuple[str, list[str]]:
    """The page from every JSON of ``results_dir`` laid out by the sections of ``registry``,
    and the sections that failed to render."""
    now = now or time.strftime("%Y-%m-%d %H:%M")
    loaded: dict[str, Row] = {}
    for path in sorted(results_dir.glob("*.json")):
        loaded[path.stem] = json.loads(path.read_text(encoding="utf-8"))
    contents, parts, failed = [], [], []
    for s in registry:
        path = results_dir / s.file
        link = f"[{s.title}](#{_slug(s.title)})"
        if s.name not in loaded:
            script = s.rerun({})
            contents.append(f"| {link} | not measured yet | | | `{script}` |")
            parts += [f"## {s.title}", "",
                         f"Not measured yet: `{script}` writes `results/{s.file}`.", ""]
            continue
        r = loaded[s.name]
        try:
            body, headline = s.body(r), s.headline(r)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            failed.append(s.name)
            body, headline = [f"Could not render {path.name}: {type(exc).__name__} {exc}."], []
        when = _span(_stamps(r, "measured_at")) or "not recorded"
        if r.get("quick"):  # a look only: its figures are no benchmark
            headline = ["**quick run**", *headline]
        contents.append(f"| {link} | {when} | {', '.join(_stamps(r, 'git_sha')) or '-'} | "
                        f"{'; '.join(headline)} | `{s.rerun(r)}` |")
        parts += [f"## {s.title}", "", provenance_line(r, path), "",
                     f"Rerun: `{s.rerun(r)}` (writes `results/{s.file}`).", "", *body, ""]
    others = sorted(set(loaded) - {s.name for s in registry})
    page = [
        "# Benchmarks", "",
        f"Assembled {now} by `python benchmarks/report.py` (commit {git_commit() or '?'}) from "
        f"the {len(loaded)} JSON files in `{_shown(results_dir)}/`; nothing was measured to make "
        "this page. Each section says when, at which commit and on which machine its figures "
        "were measured, as its JSON records them, and the command that measures them again. "
        "Every speed is a ratio against a reference timed in the same run, so sections measured "
        "on different days or under different loads compare through their ratios, not their "
        "seconds.", "",
        f"`make bench` runs every benchmark below, then this report ({MAKE_BENCH_TIME} on 2 "
        f"cores, {MAKE_BENCH_DISK}); `make bench-report` only renders this page again from the "
        "JSON files.", "",
        "## Contents", "",
        "| benchmark | measured | commit | headline | rerun |", "|---|---|---|---|---|",
        *contents, "",
        "Measured apart, not by `make bench`:", "",
        *[f"- `{command}`: {what}." for command, what in SEPARATE], "",
        *parts]
    if others:
        page += ["## Other result files", "",
                 "No renderer for: " + ", ".join(f"`{o}.json`" for o in others) + ".", ""]
    return "\n".join(page).rstrip() + "\n", failed


def section_text(name: str, result: Row) -> str:
    """One benchmark's section alone (a bench script prints its own figures through this)."""
    s = BY_NAME[name]
    return "\n".join([f"## {s.title}", "", *s.body(result), ""])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=RESULTS, help="folder of the JSON files")
    ap.add_argument("--out", type=Path, default=PAGE)
    args = ap.parse_args(argv)
    text, failed = render(args.results.resolve())
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    for name in failed:
        print(f"report: could not render {name}.json (see its section)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
