"""The registry behind figure families and report sections: entries listed in their order, a
name registered twice refused, an entry left without its drawing (rendering) refused."""

from __future__ import annotations

import pytest

from ordauc.report.figure_families import FIGURE_FAMILIES, FigureFamily, families, figure_family
from ordauc.report.sections import REPORT_SECTIONS, report_section, sections


@pytest.fixture
def restored():  # noqa: ANN201 - the registries as they were, whatever a test registers
    saved = [(r, dict(r)) for r in (FIGURE_FAMILIES, REPORT_SECTIONS)]
    yield
    for registry, before in saved:
        registry.clear()
        registry.update(before)


def test_families_come_in_their_order_and_a_name_twice_is_refused(restored) -> None:
    first = figure_family("zz_late", order=10_001)(lambda study: None)
    early = figure_family("zz_early", order=10_000, applies_to=lambda s: False)(lambda s: 1)
    assert isinstance(early, FigureFamily) and not early.applies_to(None)
    early.drawer(lambda data, study, out: [])
    first.drawer(lambda data, study, out: [])
    names = [f.name for f in families()]
    assert names[-2:] == ["zz_early", "zz_late"]
    assert [f.order for f in families()] == sorted(f.order for f in families())
    with pytest.raises(ValueError, match="figure family 'zz_late' is registered twice"):
        figure_family("zz_late", order=1)(lambda study: None)


def test_an_entry_without_its_drawing_or_rendering_is_refused(restored) -> None:
    figure_family("zz_bare", order=10_000)(lambda study: None)
    with pytest.raises(ValueError, match="figure families without a drawing: zz_bare"):
        families()
    report_section("zz_bare", order=10_000)(lambda study: None)
    with pytest.raises(ValueError, match="report sections without a rendering: zz_bare"):
        sections()
    with pytest.raises(ValueError, match="report section 'zz_bare' is registered twice"):
        report_section("zz_bare", order=1)(lambda study: None)
