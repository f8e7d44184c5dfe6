"""``ordauc fetch``: download, verify, decompress, parse and prepare catalogue datasets.

For each name: every source file is obtained and verified (``ordauc.data.download``), the
entry's recipe prepares the arrays in a fresh staging folder, the manifest is written last, and
the folder is renamed to ``<data dir>/<name>`` in one step. Any failure discards the staging
folder, so the cache holds complete datasets only. Fetching a prepared dataset again does nothing
unless ``force`` is given (then it is prepared again from the verified downloads).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ordauc.data.archive import CORRUPTION_ERRORS
from ordauc.data.cache import MANIFEST, DataCache, write_json_atomic
from ordauc.data.catalog import CATALOG
from ordauc.data.download import NO_SPACE, Obtained, obtain
from ordauc.data.manifest import build
from ordauc.data.prepare import Context, Recipe
from ordauc.data.spec import Entry
from ordauc.errors import UserError


@dataclass(frozen=True)
class Fetched:
    """What one fetch did for one dataset."""

    name: str
    status: str  # "prepared" or "cached"
    path: Path
    warnings: tuple[str, ...] = ()


def recipes() -> dict[str, Recipe]:
    """Recipe name (an entry's ``recipe``) -> function. The recipe modules are imported here,
    on demand, so that listing the catalogue loads none of them (TF-IDF, parsers); and here
    rather than in :mod:`ordauc.data.prepare`, which every recipe imports."""
    from ordauc.data import recipe_movielens, recipe_partitions, recipe_tables, recipe_text

    return {
        "svmlight": recipe_tables.svmlight,
        "table": recipe_tables.table,
        "chu": recipe_partitions.chu,
        "orreview": recipe_partitions.orreview,
        "amazon": recipe_text.amazon,
        "movielens": recipe_movielens.movielens,
    }


def entry_of(name: str) -> Entry:
    from ordauc.data.builtin import BUILTIN

    if name in BUILTIN:
        return BUILTIN[name]
    if name not in CATALOG:
        raise UserError(f"no dataset {name!r} in the catalogue; `ordauc datasets` lists them "
                        "all")
    return CATALOG[name]


def fetch(names: Sequence[str], data_dir: Path, mirrors: Sequence[str] = (), *,
          force: bool = False, progress: bool = True, retries: int = 5, backoff: float = 1.0,
          echo: Callable[[str], None] = print) -> list[Fetched]:
    """Fetch and prepare each of ``names`` into ``data_dir``. A dataset that fails does not stop
    the others (each is prepared or not, atomically); the failures are raised at the end, the
    one UserError as it is, several in one."""
    entries = [entry_of(n) for n in dict.fromkeys(names)]  # all names checked before any work
    cache = DataCache(Path(data_dir))
    done = []
    failed: list[tuple[str, UserError]] = []
    for entry in entries:
        if entry.builtin:  # made in memory when loaded: nothing to download or store
            echo(f"{entry.name}: built in, nothing to fetch (`ordauc run` makes it as it goes)")
            continue
        if cache.is_prepared(entry.name) and not force:
            echo(f"{entry.name}: already prepared in {cache.dataset_dir(entry.name)}")
            done.append(Fetched(entry.name, "cached", cache.dataset_dir(entry.name)))
            continue
        try:
            done.append(_fetch_one(entry, cache, mirrors, progress, retries, backoff, echo))
        except UserError as exc:
            failed.append((entry.name, exc))
    if len(failed) == 1:
        raise failed[0][1]
    if failed:
        raise UserError(f"{len(failed)} datasets could not be fetched (the others are "
                        "prepared): " + "; ".join(f"{name}: {exc}" for name, exc in failed))
    return done


def _fetch_one(entry: Entry, cache: DataCache, mirrors: Sequence[str], progress: bool,
               retries: int, backoff: float, echo: Callable[[str], None]) -> Fetched:
    timings: dict[str, float] = {}
    start = time.perf_counter()
    obtained: dict[str, Obtained] = {}
    for role, source in entry.sources.items():
        obtained[role] = obtain(source, cache, mirrors, progress=progress, retries=retries,
                                backoff=backoff)
        echo(f"{entry.name}: {source.filename} verified ({obtained[role].check})")
    timings["download_and_verify"] = time.perf_counter() - start
    staged = cache.new_staging_dir(entry.name)
    try:
        start = time.perf_counter()
        ctx = Context(entry, {r: o.path for r, o in obtained.items()}, out=staged,
                      work=staged / ".work")
        ctx.work.mkdir()
        result = recipes()[entry.recipe](ctx)
        shutil.rmtree(ctx.work)
        timings["prepare"] = time.perf_counter() - start
        manifest = build(entry, staged, obtained, result, ctx.warnings, timings)
        write_json_atomic(staged / MANIFEST, manifest)
        final = cache.publish(staged, entry.name)
    except OSError as exc:
        cache.discard(staged)
        if exc.errno in NO_SPACE:
            raise UserError(f"the disk holding {cache.root} is full (while preparing "
                            f"{entry.name}), so the dataset was not stored (its verified "
                            "downloads stay in downloads/); free some space and fetch again"
                            ) from None
        raise
    except CORRUPTION_ERRORS as exc:
        cache.discard(staged)
        raise UserError(f"a source file of {entry.name} is damaged ({exc}), so nothing was "
                        "stored") from None
    except BaseException:
        cache.discard(staged)
        raise
    for text in ctx.warnings:
        echo(f"warning: {text}")
    echo(f"{entry.name}: prepared in {final} ({_shape_text(manifest)})")
    return Fetched(entry.name, "prepared", final, tuple(ctx.warnings))


def _shape_text(manifest: dict) -> str:
    text = f"{manifest['n']:,} x {manifest['d']:,}"
    if manifest.get("n_test"):
        text += f", test {manifest['n_test']:,}"
    return text

