"""``ordauc plot --help`` and ``ordauc report --help`` each speak of their own command: plot's
``-v`` lists figure files (it has no summary), report's prints the summary, and report's folder
may be a folder of studies."""

from __future__ import annotations

import re


def _help(cli, command: str) -> str:
    code, out, _ = cli(command, "--help")
    assert code == 0
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", out).split())  # the panel's borders and wrapping


def test_plot_help_speaks_of_figures_not_of_the_report_summary(cli) -> None:
    text = _help(cli, "plot")
    assert "List every figure file written" in text
    assert "summary" not in text
    assert "DIR/figures" in text and "DIRECTORY" not in text


def test_report_help_speaks_of_its_summary_and_a_folder_of_studies(cli) -> None:
    text = _help(cli, "report")
    assert "Print the report's summary and every file written" in text
    assert "or a folder of them" in text
    assert "figure file" not in text
