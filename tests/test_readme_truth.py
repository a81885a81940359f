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
    assert listed and sorted(f.strip() for f in listed.group(1).split(",")) == features
    service = architecture.split("- `app/service/`", 1)[1].split("\n- ", 1)[0]
    for module in (ROOT / "app" / "service").glob("*.py"):
        name = module.stem
        if name != "__init__":
            assert name in service, name
