"""The throughput-vs-batch chart follows each ranked layout, pipeline stages included."""

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload
from app.web.rank.results_view import _curves

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_pipeline_parallel_layouts_get_a_throughput_curve():
    workload = InferenceWorkload(model="llama-3.3-70b", weight_dtype="fp8", input_len=5000, output_len=500)
    option = {"gpu_id": "H100-SXM", "gpu_count": 4, "tensor_parallel": 1, "pipeline_parallel": 4}
    curves = _curves([option], workload, CatalogSnapshot(gpus=GPUS, offers=()), MODELS["llama-3.3-70b"])
    (label, points) = curves[0]
    assert label == "4×H100-SXM"
    assert len(points) >= 3  # TP1 alone cannot hold 70B on one H100: without PP the curve was empty
    assert points[-1][1] > points[0][1]
