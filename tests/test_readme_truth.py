"""What the README says of the code and of docs/BENCH.md, checked against them: the numbers reviewers found stale."""

from __future__ import annotations

import re
from pathlib import Path

from app.config import PROJECT_ROOT, Settings
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.serving.disaggregated.reasons import MIN_SAVING_SHARE

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BENCH = (ROOT / "docs" / "BENCH.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_speed_section_quotes_only_ratios_bench_md_states() -> None:
    speed = _section("Speed")
    assert "docs/BENCH.md" in speed and " ms " not in speed.replace("5 ms target", "")  # milliseconds live in BENCH.md
    measured = re.sub(r"(target|reaches) [≤≥]? ?[\d.]+×?", "", speed)  # targets are BENCH.md's too, checked apart
    ratios = re.findall(r"(\d+\.\d+)(?:–(\d+\.\d+))?×", measured)
    assert ratios
    stated = set(re.findall(r"\| (\d+\.\d+)x \|", BENCH))
    for low, high in ratios:
        assert low in stated and (not high or high in stated), (low, high)
    assert re.search(r"\*\*(\d\.\d+)\*\*", BENCH).group(1) in speed  # rank/healthz  # type: ignore[union-attr]


def test_the_readme_names_the_fitted_inter_node_all_reduce_latency() -> None:
    micro = DEFAULT_EFFICIENCY.allreduce_alpha_fabric_ms * 1000
    assert f"inter-node all-reduce latency at {micro:.0f} µs" in README


def test_the_readme_names_the_disaggregation_margin_the_code_uses() -> None:
    assert f"saves at least {MIN_SAVING_SHARE * 100:.1f} %" in README
    loso = re.search(r"\| inference output tokens/s per GPU \| \d+ \| ([\d.]+) % \|", README)
    assert loso and f"above today's {loso.group(1)} %" in README  # the current LOSO median, from the README's table


def test_the_readme_gives_the_default_database_url_the_code_uses() -> None:
    default = Settings.model_fields["database_url"].default
    assert default == f"sqlite:///{PROJECT_ROOT / 'var' / 'gpumatch.db'}"
    assert "`sqlite:///<checkout>/var/gpumatch.db`" in README and "sqlite:///./var" not in README


def test_the_architecture_names_every_web_feature_and_service_module() -> None:
    architecture = _section("Architecture")
    features = sorted(p.name for p in (ROOT / "app" / "web").iterdir() if (p / "__init__.py").exists())
    listed = re.search(r"`app/web/<feature>/` \(([^;]+);", architecture)
    parts = re.search(r"`app/web/<part>/`\s+\(([^)]+)\)", architecture)  # what the features share
    assert listed and parts
    assert sorted(f.strip() for f in listed.group(1).split(",") + parts.group(1).split(",")) == features
    service = architecture.split("- `app/service/`", 1)[1].split("\n- ", 1)[0]
    for module in (ROOT / "app" / "service").glob("*.py"):
        name = module.stem
        if name != "__init__":
            assert name in service, name


def test_the_readme_quotes_the_data_parallel_attention_example_the_estimator_gives(client) -> None:  # type: ignore[no-untyped-def]
    """The README's R1 example had gone stale (13.3k against 4.3k, where the estimator said 12.3k and 4.5k)."""
    quoted = re.search(
        r"serves (\S+)k tok/s\s+with it against (\S+)k by heads \(memory for ([\d,]+) sequences instead of (\d+); "
        r"on vLLM, whose host time per running\s+sequence grows with the batch, (\S+)k against (\S+)k\)",
        README,
    )
    assert quoted is not None
    said = [float(quoted.group(i)) for i in (1, 2, 5, 6)]
    question = {"model": "deepseek-r1", "weight_dtype": "fp8", "gpu": "H200", "gpu_count": 8, "input_len": 1000}
    question |= {"output_len": 8000, "ttft_ms": 10000, "tpot_ms": 100}
    answers = {
        (engine, split): client.post(
            "/api/v1/estimate/inference", json={**question, "engine": engine, "attention_parallel": split}
        ).json()
        for engine in ("sglang", "vllm")
        for split in ("dp", "tp")
    }
    got = [round(answers[key]["output_tokens_per_s"] / 1000, 1) for key in answers]
    assert got == said
    assert answers["sglang", "dp"]["max_batch"] == int(quoted.group(3).replace(",", ""))
    assert answers["sglang", "tp"]["max_batch"] == int(quoted.group(4))


def test_the_readme_accuracy_table_and_target_counts_are_docs_accuracy_json() -> None:
    """The README had kept a training LOSO of 11.6 % and "5 of 5" after ACCURACY.md said 12.3 % and 4 of 5."""
    import json

    summary = json.loads((ROOT / "docs" / "accuracy.json").read_text(encoding="utf-8"))

    def loso(phase: str, metric: str) -> dict:  # type: ignore[type-arg]
        return summary[phase]["headline"]["loso"][metric]  # type: ignore[no-any-return]

    def coverage(phase: str, metric: str) -> float:  # the target's figure: the band built without the publication
        return summary[phase]["band_coverage"][metric]["held_out_share"]  # type: ignore[no-any-return]

    tokens, train = loso("inference", "output_tok_s_per_gpu"), loso("training", "tokens_s_per_gpu")
    rows = {
        "inference output tokens/s per GPU": (tokens, coverage("inference", "output_tok_s_per_gpu")),
        "training tokens/s per GPU": (train, coverage("training", "tokens_s_per_gpu")),
    }
    for label, (stats, band) in rows.items():
        row = (
            f"| {label} | {stats['publications']} | {stats['median_abs_pct_error']:.1f} % | "
            f"{stats['within_25pct_share'] * 100:.0f} % | {band * 100:.1f} % |"
        )
        assert row in README, row
    ttft, tpot = loso("inference", "ttft_ms"), loso("inference", "tpot_ms")
    assert (
        f"| {ttft['median_abs_pct_error']:.1f} % / {tpot['median_abs_pct_error']:.1f} % | "
        f"{ttft['within_25pct_share'] * 100:.0f} % / {tpot['within_25pct_share'] * 100:.0f} % | "
        f"{coverage('inference', 'ttft_ms') * 100:.1f} % / {coverage('inference', 'tpot_ms') * 100:.1f} % |"
    ) in README
    met = {phase: sum(t["met"] for t in summary[phase]["targets"]) for phase in ("inference", "training")}
    total = {phase: len(summary[phase]["targets"]) for phase in ("inference", "training")}
    assert (
        f"Today {met['inference']} of {total['inference']} inference targets and "
        f"{met['training']} of {total['training']} training targets are met"
    ) in README


def test_the_readme_band_widenings_are_the_committed_margins() -> None:
    import math

    from app.scoring.efficiency.band_table import BAND_MARGINS

    text = " ".join(README.split())
    for words, metric in (
        ("output tokens/s ×", "output_tok_s_per_gpu"),
        ("TPOT ×", "tpot_ms"),
        ("TTFT ×", "ttft_ms"),
        ("training tokens/s ×", "tokens_s_per_gpu"),
    ):
        assert f"{words}{math.exp(BAND_MARGINS[metric]):.2f}" in text, metric


def test_the_configuration_table_names_every_setting_and_only_settings() -> None:
    """GPUMATCH_ENVIRONMENT=production (docker-compose.yml) set a setting nothing read, and GPUMATCH_SEED_DIR was read
    but named nowhere: every variable the README's table, docker-compose.yml or the Dockerfile sets is a setting, and
    every setting is in the table."""
    table = set(re.findall(r"`GPUMATCH_([A-Z_]+)`", _section("Configuration")))
    settings = {name.upper() for name in Settings.model_fields}
    assert table == settings, table ^ settings
    for deploy_file in ("docker-compose.yml", "Dockerfile"):
        named = set(re.findall(r"GPUMATCH_([A-Z_]+)", (ROOT / deploy_file).read_text(encoding="utf-8")))
        assert named <= settings, (deploy_file, named - settings)


def test_operations_names_every_machine_field_an_admin_row_keeps() -> None:
    from app.catalog.prices.price_import import KEPT_FIELDS

    operations = " ".join((ROOT / "docs" / "OPERATIONS.md").read_text(encoding="utf-8").split())
    kept = re.search(r"leaves out a machine, terms or notes field \(([^)]+)\) keeps the stored value", operations)
    assert kept is not None
    assert sorted(re.findall(r"`(\w+)`", kept.group(1))) == sorted(KEPT_FIELDS)
