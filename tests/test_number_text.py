"""Numbers as a person reads them on the pages and the CLI: grouped by thousands, no exponent, no more places than
the magnitude needs, money as the shared formatters write it (app.scoring.explain)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.cli.main import main

BATCH_JOB = "/?phase=inference&model=llama-3.1-8b&scenario=max_throughput&job_requests=1000000000&job_deadline_hours=24"


def test_the_own_command_groups_its_terms_by_thousands(database, capsys):
    assert main(["own", "--gpu", "H100-SXM", "--gpu-count", "8", "--purchase-usd-per-server", "317000"]) == 0
    rows = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines() if len(line.split()) > 1}
    assert rows["purchase"] == "317,000.00"  # read 317000.00


def test_a_batch_job_of_a_billion_requests_reads_in_whole_dollars_and_grouped_counts(client: TestClient):
    text = client.get(BATCH_JOB).text
    job = re.search(r"the job of ([\d,]+) requests takes .*? and costs <strong>(\$[\d,.]+)</strong>", text, re.S)
    assert job and job.group(1) == "1,000,000,000"
    assert "." not in job.group(2)  # $71,772, not $71,772.01: cents on a five-figure job are noise


def test_the_cli_batch_job_table_groups_its_tokens_per_second(database, capsys):
    argv = ["rank", "inference", "--model", "llama-3.1-8b", "--scenario", "max_throughput"]
    assert main([*argv, "--job-requests", "1e9", "--job-deadline-hours", "24", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    first = next(line for line in out.splitlines() if line.startswith("1 "))
    assert re.search(r" \d,\d{3} ", first)  # tok/s 3,129, as the page rounds it (not 3128.8)
    assert not re.search(r"\d,\d{3}\.\d\d ", first)  # job $ 71,772, not 71,772.01
    assert "e+" not in out


def test_a_long_prompt_is_grouped_in_the_disagg_heading(client: TestClient):
    text = client.get("/disagg?model=llama-3.1-70b&weight_dtype=fp8&input_len=32000&output_len=1000").text
    assert "32,000 in / 1,000 out" in text  # read 32000 in / 1000 out


def test_a_training_rows_terms_show_no_places_on_numbers_in_the_thousands(client: TestClient):
    """Found by qa22: a 70B row's terms read "FLOPs per token 439,486,400,000.0 FLOP", a tenth of a FLOP on a
    twelve-digit count; from 1,000 a term's value is whole, as the thousands-grouped counts elsewhere on the page."""
    text = client.get("/?phase=training&model=llama-3.1-70b").text
    values = re.findall(r'<td class="n" role="cell">([\d,.]+) ([^<]*)</td>', text)
    assert any(unit.strip() == "FLOP" for _, unit in values)
    assert [v for v, _ in values if "," in v and "." in v] == []


def test_prices_in_words_keep_their_cents() -> None:
    """The replicas note printed '$0.7' per million through significant(), where the ranking's row reads $0.700 (found
    by qa33); /own's terms read '$2.5/GPU-h' and '$0.1/kWh' for the prices a buyer typed as 2.50 and 0.10."""
    from app.scoring.explain import usd_price, usd_shown
    from app.scoring.serving.ownership.cost import compare_ownership, ownership_terms
    from tests.test_own_api import INPUTS

    assert [usd_shown(v, 3) for v in (0.7, 0.699, 4.4219, 19.952)] == ["$0.700", "$0.699", "$4.422", "$19.95"]
    assert [usd_price(v) for v in (2.5, 0.1, 0.1234, 1200.0)] == ["$2.50", "$0.10", "$0.1234", "$1,200.00"]
    terms = {t.name: t.detail for t in ownership_terms(compare_ownership(INPUTS))}
    assert "× $2.50/GPU-h ×" in terms["renting"]
    assert not re.search(r"\$\d+\.\d(?!\d)", " ".join(terms.values())), terms  # no '$x.y': cents at least


def test_the_replicas_notes_prices_read_as_the_rows_do(client: TestClient) -> None:
    from app.scoring.explain import usd_shown

    body = client.post(
        "/api/v1/rank/inference?limit=1&terms=false",
        json={"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 20},
    ).json()
    note, best = body["replicas"]["note"], body["options"][0]
    assert f"costs {usd_shown(best['usd_per_million_output_tokens'], 3)} per million" in note
    assert f"× the {usd_shown(body['replicas']['usd_per_million_output_tokens'], 3)} of replicas" in note
