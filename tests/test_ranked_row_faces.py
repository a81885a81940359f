"""One question, the same answer on every face: the results page's #1 row and `gpumatch rank`'s show the same figures,
rounded the same way; a label the page gives the best (limits or deadline at risk) the CLI gives too; and an
overloaded load's link to replicas is in the page, the JSON and the CLI alike (found by qa23)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli


class _FirstRankedRow(HTMLParser):
    """The cells of the ranked table's first row, by their data-label, as the eye reads them (no .sr-only text)."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[str, str] = {}
        self.label: str | None = None
        self.in_row = self.done = False
        self.hidden = False  # inside a visually hidden span (.sr-only: a tooltip's words for screen readers)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "span" and "sr-only" in (found.get("class") or "").split():
            self.hidden = True
        if tag == "tr" and (found.get("class") or "").startswith("row") and not self.done:
            self.in_row = True
        elif self.in_row and tag in ("td", "th") and found.get("data-label"):
            self.label = found["data-label"]
            self.cells[self.label or ""] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "span":
            self.hidden = False  # an .sr-only span holds no other span
        if tag in ("td", "th"):
            self.label = None
        elif tag == "tr" and self.in_row:
            self.in_row, self.done = False, True

    def handle_data(self, data: str) -> None:
        if self.label and not self.hidden:
            self.cells[self.label] += data


def _page_row(client: TestClient, query: str) -> dict[str, str]:
    parser = _FirstRankedRow()
    parser.feed(client.get(f"/?{query}").text)
    return {label: " ".join(text.split()) for label, text in parser.cells.items()}


def _cli_text(capsys: Any, argv: list[str]) -> str:
    assert cli(argv) == 0
    return str(capsys.readouterr().out)


def _cli_row(text: str) -> dict[str, str]:
    """The CLI table's row #1 by its column headers (columns are two spaces apart or more)."""
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("#"))
    names = re.split(r"\s{2,}", lines[header].strip())
    first = next(line for line in lines[header + 2 :] if line.startswith("1 "))
    return dict(zip(names, re.split(r"\s{2,}", first.strip()), strict=False))


INFERENCE = "phase=inference&model=llama-3.1-70b"
TRAINING = "phase=training&model=llama-3.1-8b&method=full_ft&total_tokens=1000000000"


def test_the_page_and_the_cli_show_the_best_inference_row_alike(client: TestClient, database: str, capsys) -> None:
    page = _page_row(client, INFERENCE)
    row = _cli_row(_cli_text(capsys, ["rank", "inference", "--model", "llama-3.1-70b", "--limit", "1"]))
    assert page["Tok/s"] == row["tok/s"]  # 780 both (the CLI wrote 780.4)
    assert page["Batch"] == row["batch"]
    assert page["TTFT ms mean (p99)"] == row["TTFT ms mean (p99)"]
    assert page["TPOT ms mean (p99)"] == row["TPOT ms mean (p99)"]
    assert page["$/GPU-h"] == "$" + row["$/GPU-h"]
    assert page["$/M out tok (band)"] == "$" + row["$/M out tok (band)"]  # $1.424 (0.676–2.180): the CLI had no band


def test_a_costly_rows_band_is_rounded_as_its_cost_on_the_page_and_in_the_cli(
    client: TestClient, database: str, capsys
) -> None:
    """$12.01 per million output tokens read "(5.912–18.360)" beside it on the page, "$5.91–$18.36" in its summary."""
    page = _page_row(client, "phase=inference&model=deepseek-r1")["$/M out tok (band)"]
    row = _cli_row(_cli_text(capsys, ["rank", "inference", "--model", "deepseek-r1", "--limit", "1"]))
    cost, band = re.fullmatch(r"\$([\d.,]+) \(([\d.,]+)–([\d.,]+)\)", page).group(1, 2)  # type: ignore[union-attr]
    assert float(cost) >= 10 and len(cost.split(".")[1]) == len(band.split(".")[1]) == 2
    assert page == "$" + row["$/M out tok (band)"]


def test_the_page_and_the_cli_show_the_best_training_row_alike(client: TestClient, database: str, capsys) -> None:
    page = _page_row(client, TRAINING)
    argv = ["rank", "training", "--model", "llama-3.1-8b", "--method", "full_ft", "--total-tokens", "1e9"]
    row = _cli_row(_cli_text(capsys, [*argv, "--limit", "1"]))
    assert page["Step s"] == row["step s"]  # 14.47 both (the CLI wrote 14.5)
    assert page["Tok/s/GPU"] == row["tok/s/GPU"]  # 18,113 both (the CLI wrote 18,113.4)
    assert page["MFU"] == row["MFU"]  # the CLI had no MFU column
    assert page["$/step"] == "$" + row["$/step"]
    assert page["Run time"] == row["run time"]  # 16 h both (the CLI gave total h, 15.6)
    assert page["Total $ (ranks; band)"] == "$" + row["total $ (band)"]  # $62 (49–97): the CLI had no band


# (page query, CLI arguments, the page's column, the CLI's): a price's terms said beside the figure they change
TERMS_CELLS = [
    (  # a month's reservation paid whole for a 3-hour job: the page said "(billed 30 days)", the CLI only $949
        "phase=inference&model=llama-3.1-8b&scenario=max_throughput&job_requests=50000&price_types=reserved",
        ["rank", "inference", "--model", "llama-3.1-8b", "--scenario", "max_throughput", "--job-requests", "50000"]
        + ["--price-types", "reserved"],
        "Job $",
        "job $",
    ),
    (  # spot's expected interruptions beside the run: "3.0 h (<0.1 int.)" on the page, 3.012 total h in the CLI
        "phase=training&model=llama-3.1-8b&price_types=spot",
        ["rank", "training", "--model", "llama-3.1-8b", "--price-types", "spot"],
        "Run time",
        "run time",
    ),
]


@pytest.mark.parametrize(("query", "argv", "page_column", "cli_column"), TERMS_CELLS)
def test_a_rows_billed_terms_read_alike_on_the_page_and_in_the_cli(
    client: TestClient, database: str, capsys, query: str, argv: list[str], page_column: str, cli_column: str
) -> None:
    page = _page_row(client, query)[page_column]
    assert "(billed" in page or "int.)" in page, "the row must show its terms for this test to mean anything"
    assert page.removeprefix("$") == _cli_row(_cli_text(capsys, [*argv, "--limit", "1"]))[cli_column]


@pytest.mark.parametrize(
    ("query", "argv", "label", "field"),
    [
        (INFERENCE, ["rank", "inference", "--model", "llama-3.1-70b"], "limits at risk", "limits_at_risk"),
        (
            "phase=training&model=llama-3.1-8b&method=pretrain&total_tokens=100000000000&max_days=10",
            ["rank", "training", "--model", "llama-3.1-8b", "--method", "pretrain", "--total-tokens", "1e11"]
            + ["--max-days", "10"],
            "deadline at risk",
            "deadline_at_risk",
        ),
    ],
)
def test_a_best_row_at_risk_is_labelled_on_the_page_and_in_the_cli(
    client: TestClient, database: str, capsys, query: str, argv: list[str], label: str, field: str
) -> None:
    words = client.get(f"/rank.json?{query}").json()["options"][0][field]
    assert words, "the question's best row must be at risk for this test to mean anything"
    page = client.get(f"/?{query}").text.replace("&#39;", "'")
    assert f'<span class="badge warn">{label}</span>' in page and words in page
    assert f"#1 {label}: " in (text := _cli_text(capsys, [*argv, "--limit", "1"])) and words in text


OVERLOADED = "phase=inference&model=llama-3.1-70b&weight_dtype=fp8&scenario=request_rate&requests_per_s=200"


def test_an_overloaded_load_links_the_same_replicas_on_every_face(client: TestClient, database: str, capsys) -> None:
    answer = client.get(f"/rank.json?{OVERLOADED}").json()
    assert answer["feasible_options"] == 0
    url = answer["overloaded"]["url"]  # the JSON had no pointer to the replicas that carry the load
    assert url == "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&peak_requests_per_s=200"
    assert client.get(url).status_code == 200 and client.get(f"/rank.json?{url[2:]}").json()["feasible_options"]
    assert f'href="{url.replace("&", "&amp;")}"' in client.get(f"/?{OVERLOADED}").text
    argv = ["rank", "inference", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--scenario", "request_rate"]
    assert url in _cli_text(capsys, [*argv, "--requests-per-s", "200", "--limit", "1"])  # the CLI had none either
    post = client.post(
        "/api/v1/rank/inference",
        json={"model": "llama-3.1-70b", "weight_dtype": "fp8"} | {"scenario": "request_rate", "requests_per_s": 200},
    )
    assert post.json()["overloaded"] == answer["overloaded"]


def test_a_load_cheaper_on_replicas_links_them_on_the_page_and_in_the_cli(
    client: TestClient, database: str, capsys
) -> None:
    """20 requests/s of an 8B model on one rented instance cost 2.3x what replicas sized to the limits would (512
    clients were, before the load was spread over an instance's copies): the page linked them beside the note, the
    CLI gave the note without the link."""
    query = "phase=inference&model=llama-3.1-8b&scenario=request_rate&requests_per_s=20"
    url = client.get(f"/rank.json?{query}").json()["replicas"]["url"]
    assert f'href="{url.replace("&", "&amp;")}"' in client.get(f"/?{query}").text
    argv = ["rank", "inference", "--model", "llama-3.1-8b", "--scenario", "request_rate", "--requests-per-s", "20"]
    said = (
        "Each row is one rented instance taking all 20 requests/s, spread over the copies it holds. The same traffic "
        "spread over replicas sized to meet the limits"
    )
    assert f"{said}: {url}" in _cli_text(capsys, [*argv, "--limit", "1"])


def test_a_best_row_near_its_tpot_floor_says_so_on_the_page_and_in_the_cli(
    client: TestClient, database: str, capsys
) -> None:
    """405B FP8 on 8×H200 at a 40 ms TPOT limit runs batch 5 (18 at 50 ms): the page and the JSON said why, near the
    TPOT floor (qa35), the CLI gave the batch alone, so a buyer sweeping the limit there met the jump unexplained."""
    query = "phase=inference&model=llama-3.1-405b&weight_dtype=fp8&engine=trtllm&gpus=H200&tpot_ms=40"
    best = client.get(f"/rank.json?{query}").json()["options"][0]
    (words,) = [a for a in best["assumptions"] if a.startswith("near the TPOT floor: ")]
    assert words in client.get(f"/?{query}").text.replace("&#39;", "'")
    argv = ["rank", "inference", "--model", "llama-3.1-405b", "--weight-dtype", "fp8", "--engine", "trtllm"]
    argv += ["--gpus", "H200", "--tpot-ms", "40", "--limit", "1"]
    assert f"#1 {words}" in _cli_text(capsys, argv)
