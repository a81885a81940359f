"""An estimate's terms are written when first read: a lean rank answer writes none, a full one writes each shown
configuration's once, and every offer of one configuration shares them."""

from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.explain import LazyTerms, Term
from app.scoring.inference.explanation import explain_estimate
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload
from app.service.rank.plain import plain, plain_row

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _offer(gpu_id: str, price: float, provider: str) -> Offer:
    return Offer(provider, provider.upper(), gpu_id, 8, "on_demand", price, date(2025, 1, 1))


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each configuration whose terms are written, in the order they are."""
    calls: list[object] = []
    write = explain_estimate._terms

    def counting(solved):  # type: ignore[no-untyped-def]
        calls.append(solved)
        return write(solved)

    monkeypatch.setattr(explain_estimate, "_terms", counting)
    return calls


def _ranking(input_len: int):  # type: ignore[no-untyped-def]
    # input_len makes each test's workload its own, so no memoised estimate from another test is read
    offers = tuple(_offer(g, p, prov) for g in ("H100-SXM", "H200") for p, prov in ((2.0, "a"), (2.5, "b")))
    workload = InferenceWorkload(model="llama-3.1-8b", input_len=input_len)
    return rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=offers), MODELS["llama-3.1-8b"])


def test_a_lean_answer_writes_no_terms_and_a_full_one_each_configuration_once(written: list[object]) -> None:
    ranking = _ranking(1_013)
    rows = [plain_row(o, include_terms=False) for o in ranking.options]
    assert "terms" not in rows[0] and written == []
    shared: dict[int, object] = {}
    full = [plain_row(o, include_terms=True, shared=shared) for o in ranking.options]
    assert len(written) == 2  # two GPUs, two offers each: one configuration per GPU
    assert full[0]["terms"] and all(isinstance(t, dict) for t in full[0]["terms"])
    same_gpu = [r for r in full if r["gpu_id"] == full[0]["gpu_id"]]
    # converted once, shared; each row's own price adds its terms (InferenceOption.priced_terms) after them
    assert len(same_gpu) == 2 and all(a is b for a, b in zip(*(r["terms"][:-1] for r in same_gpu), strict=True))
    assert [r["terms"][-1]["name"] for r in same_gpu] == ["$ per million output tokens"] * 2


def test_lazy_terms_read_as_the_list_they_write() -> None:
    terms = [Term("decode memory time", 8.4, "ms", "70.6 GB / 8.4 TB/s"), Term("TTFT", 120.0, "ms")]
    lazy = LazyTerms(lambda: list(terms))
    assert lazy == terms and list(lazy) == terms and len(lazy) == 2 and lazy[1].name == "TTFT"
    assert plain(lazy) == plain(terms)
