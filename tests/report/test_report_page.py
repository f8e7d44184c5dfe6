"""The study's page and the index page of `ordauc report`: self-contained (figures inline, no
request leaves the machine), with the claims, tables, figures and provenance; opened in a
headless Chromium where one is installed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO

pytestmark = pytest.mark.slow  # end to end: `make test-all` and CI run it

SOLVERS = {"samult": {"grid": {"lam": [0.5, 2.0], "sigma": [1.0], "gamma": [0.5]}},
           "qsg_s2auc": {"params": {"n_iter": 100, "batch_size": 16, "block_size": 16},
                         "grid": {"lam": [0.5, 2.0], "sigma": [1.0], "gamma": [0.5]}}}
STUDY = {"datasets": ["breast_cancer", {"name": "synthetic_binary", "n": 300, "d": 5}],
         "resampling": {"repeats": 2, "n_labeled": [40], "n_unlabeled": [60],
                        "test_size": 0.3},
         "evaluate": "test", "tuning": {"folds": 2}, "solvers": SOLVERS}


@pytest.fixture(scope="module")
def studies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of two studies with the same runs (one named as a paper's config, one not: both
    get the paper's claims, matched by what they ran),
    run, plotted and reported, then the index page over them."""
    import yaml

    from ordauc.cli import main

    root = tmp_path_factory.mktemp("pages")
    for stem in ("qsg_s2auc", "mine"):
        config = root / f"{stem}.yaml"
        config.write_text(yaml.safe_dump(STUDY), encoding="utf-8")
        for argv in (["run", str(config), "--out", str(root / "results" / stem)],
                     ["plot", str(root / "results" / stem)],
                     ["report", str(root / "results" / stem)]):
            try:
                main(argv)
            except SystemExit as exc:
                assert not exc.code, argv
    try:
        main(["report", str(root / "results")])
    except SystemExit as exc:
        assert not exc.code
    return root / "results"


def page_of(studies: Path, stem: str) -> str:
    return (studies / stem / "report" / "index.html").read_text(encoding="utf-8")


def test_the_study_page_holds_claims_tables_figures_and_provenance(studies: Path) -> None:
    text = page_of(studies, "qsg_s2auc")
    for anchor in ("claims", "protocol", "summary", "tables", "figures", "config"):
        assert f'<section id="{anchor}">' in text
    assert "QSG-S2AUC (IJCAI 2019)" in text and "QSG-5" in text
    assert "<table>" in text and "<thead>" in text and "±" in text
    figures = list((studies / "qsg_s2auc" / "figures").glob("*.png"))
    assert figures and text.count('src="data:image/png;base64,') == len(figures)
    assert "ordauc 0." in text and "commit" in text and "page written" in text
    assert "configs" not in text or "qsg_s2auc.yaml" in text


def test_nothing_on_a_page_is_fetched_from_elsewhere(studies: Path) -> None:
    for page in [studies / "index.html", *studies.glob("*/report/index.html")]:
        text = page.read_text(encoding="utf-8")
        sources = re.findall(r'(?:src|href)="([^"]+)"', text)
        assert all(s.startswith(("data:", "#")) or not re.match(r"[a-z]+:", s)
                   for s in sources), page
        assert "<link" not in text and "@import" not in text and "url(" not in text


def test_claims_csv_lists_every_claim_of_the_paper_with_a_verdict(studies: Path) -> None:
    from ordauc.claims import CLAIMS
    from ordauc.claims.registry import PROTOCOL_STATES, VERDICTS

    claims = pd.read_csv(studies / "qsg_s2auc" / "report" / "claims.csv")
    assert list(claims.columns) == ["paper", "claim", "verdict", "statistic", "evidence",
                                    "rule"]
    ids = {c.split(":")[0] for c in claims["claim"]}
    assert ids == {i for i, c in CLAIMS.items() if c.paper == "QSG-S2AUC" and not c.protocol}
    assert set(claims["verdict"]) <= set(VERDICTS)
    # the statements of the paper's protocol are apart, each with a state of our runs
    protocol = pd.read_csv(studies / "qsg_s2auc" / "report" / "protocol.csv")
    assert list(protocol.columns) == ["paper", "statement", "state", "evidence", "check"]
    assert {c.split(":")[0] for c in protocol["statement"]} == {
        i for i, c in CLAIMS.items() if c.paper == "QSG-S2AUC" and c.protocol}
    assert set(protocol["state"]) <= set(PROTOCOL_STATES)
    undecided = claims[claims["verdict"] == "UNDECIDABLE"]
    assert (undecided["evidence"].str.len() > 10).all()  # says what is missing
    # the same runs under another config name are the same study: the same claims, verdicts
    mine = pd.read_csv(studies / "mine" / "report" / "claims.csv")
    assert mine[["claim", "verdict"]].equals(claims[["claim", "verdict"]])


def test_the_index_links_every_study_and_decides_claims_across_them(studies: Path) -> None:
    text = (studies / "index.html").read_text(encoding="utf-8")
    assert 'href="qsg_s2auc/report/index.html"' in text
    assert 'href="mine/report/index.html"' in text
    claims = pd.read_csv(studies / "claims.csv")
    assert {"QSG-S2AUC (IJCAI 2019)"} == set(claims["paper"])


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _browser(play: object) -> object:
    return play.chromium.launch(executable_path=_chromium(), args=[
        "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"])


def _sync_api() -> object:
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="needs Playwright (pip install playwright)")
    if _chromium() is None:
        pytest.skip("needs a Chromium executable on PATH (e.g. Debian's chromium package)")
    return sync_api


def _renders(browser: object, path: Path) -> None:
    """The page loads from disk alone, every figure shows, and no request leaves it."""
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    outside = [u for u in requests if not u.startswith(("file:", "data:"))]
    assert not outside, (path, outside)
    broken = page.evaluate("""Array.from(document.images)
        .filter(i => !(i.complete && i.naturalWidth > 0)).length""")
    assert broken == 0, path
    expected = (len(list((path.parent.parent / "figures").glob("*.png")))
                if path.parent.name == "report" else 0)
    assert page.evaluate("document.images.length") == expected, path
    page.close()


def test_the_pages_render_in_a_headless_browser(studies: Path) -> None:
    sync_api = _sync_api()
    pages = [studies / "index.html", *sorted(studies.glob("*/report/index.html"))]
    with sync_api.sync_playwright() as play:
        browser = _browser(play)
        try:
            for path in pages:
                _renders(browser, path)
            _sorting_works(browser, studies / "qsg_s2auc" / "report" / "index.html")
        finally:
            browser.close()


REPRODUCED = REPO / "results" / "offline"


def test_the_reproduced_twins_pages_render_and_list_every_claim() -> None:
    """After `make reproduce-offline` (CI runs it before the tests): a page per twin and the
    index render, and the twins' claims.csv files list every claim with a verdict."""
    from ordauc.claims import CLAIMS

    index = REPRODUCED / "index.html"
    if not index.is_file():
        pytest.skip(f"no {index}: `make reproduce-offline` writes it")
    twins = sorted(p.parent for p in REPRODUCED.glob("*/results.csv"))
    pages = [index, *(t / "report" / "index.html" for t in twins)]
    assert all(p.is_file() for p in pages), [p for p in pages if not p.is_file()]
    listed = pd.concat([pd.read_csv(t / "report" / "claims.csv") for t in twins])
    assert {c.split(":")[0] for c in listed["claim"]} == {
        i for i, c in CLAIMS.items() if not c.protocol}
    steps = pd.concat([pd.read_csv(t / "report" / "protocol.csv") for t in twins])
    assert {c.split(":")[0] for c in steps["statement"]} == {
        i for i, c in CLAIMS.items() if c.protocol}
    assert listed["verdict"].notna().all()
    sync_api = _sync_api()
    with sync_api.sync_playwright() as play:
        browser = _browser(play)
        try:
            for path in pages:
                _renders(browser, path)
        finally:
            browser.close()


def _sorting_works(browser: object, path: Path) -> None:
    """A click on the Verdict header of the claims table orders its rows by verdict."""
    page = browser.new_page()
    page.goto(path.as_uri())
    header = page.locator("#claims table thead th", has_text="Verdict").first
    header.click()
    verdicts = page.locator("#claims table tbody tr td:nth-child(2)").all_inner_texts()
    assert verdicts == sorted(verdicts)
    header.click()
    verdicts = page.locator("#claims table tbody tr td:nth-child(2)").all_inner_texts()
    assert verdicts == sorted(verdicts, reverse=True)
    page.close()
