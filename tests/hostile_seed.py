"""Catalog rows whose names are HTML/JS, loaded through the seed loader from a temporary seed dir."""

from __future__ import annotations

from pathlib import Path

from app.catalog.setup import seed
from app.db import make_engine

PAYLOAD = "<script>alert(1)</script>"
MODEL_ID = "xss-model"
PROVIDER_ID = "xss-provider"
GPU_ID = "H100-SXM"

FILES = {
    "providers.csv": f'id,name,kind,url\n{PROVIDER_ID},"Evil {PAYLOAD}",neocloud,https://example.com/\n',
    "models.csv": (
        "id,name,params_b,active_params_b,layers,hidden_size,num_attention_heads,num_kv_heads,head_dim,"
        "intermediate_size,vocab_size,attention,max_context,source_url,notes\n"
        f'{MODEL_ID},"Evil {PAYLOAD}",8,8,32,4096,32,8,128,14336,128256,gqa,8192,https://example.com/,"{PAYLOAD}"\n'
    ),
    "offers.csv": (
        "provider_id,gpu_id,gpu_count,instance_type,region,price_type,price_note,usd_per_hour,usd_per_gpu_hour,"
        "as_of,source_url,notes\n"
        f'{PROVIDER_ID},{GPU_ID},1,"{PAYLOAD}",eu,on_demand,"{PAYLOAD}",2.5,2.5,2026-12-01,https://example.com/,x\n'
    ),
}


def add_hostile_rows(database_url: str, seed_dir: Path) -> None:
    seed_dir.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (seed_dir / name).write_text(text, encoding="utf-8")
    engine = make_engine(database_url)
    reports = seed.seed(engine, seed_dir)
    engine.dispose()
    assert not [e for r in reports for e in r.errors], [str(e) for r in reports for e in r.errors]
