"""Each model's MLA projection sizes and fused experts for seed_data/models.csv (what the LoRA adapter count reads).

MLA: q_lora_rank, qk_nope_head_dim and v_head_dim as the reference row's notes state them ("q_lora_rank 1536",
"qk_nope_head_dim 128" or "qk_nope 128", "v_head_dim 128"), or as the row named in SAME_ARCHITECTURE states them (its
notes say "Same architecture as DeepSeek-V3"). A row that states none keeps 0: LoRA counts its attention as before.
Fused experts: the model_type of the config.json each row cites as its source_url (CONFIG_MODEL_TYPE), read by
app.scoring.hf_config.fused_experts, the rule a pasted config.json goes through too.
"""

from __future__ import annotations

import re

from app.scoring.hf_config.fused_experts import fused_experts

SAME_ARCHITECTURE = {"deepseek-r1": "deepseek-v3", "deepseek-v3.1": "deepseek-v3", "deepseek-v3.2": "deepseek-v3"}
MLA_FIELDS = {
    "q_lora_rank": re.compile(r"\bq_lora_rank (\d+)"),
    "qk_nope_head_dim": re.compile(r"\bqk_nope(?:_head_dim)? (\d+)"),
    "v_head_dim": re.compile(r"\bv_head_dim (\d+)"),
}
# config.json model_type at each row's source_url (the reference rows do not state it): gpt-oss-20b/120b "gpt_oss";
# Llama 4 Scout/Maverick "llama4" (text_config "llama4_text").
CONFIG_MODEL_TYPE = {
    "gpt-oss-20b": "gpt_oss",
    "gpt-oss-120b": "gpt_oss",
    "llama-4-scout": "llama4",
    "llama-4-maverick": "llama4",
}


def mla_dims(row: dict[str, str], by_id: dict[str, dict[str, str]]) -> dict[str, str]:
    """The row's MLA sizes as cells ("0" where the notes state none); a stated qk_nope must complete head_dim."""
    if row["attention"] != "mla":
        return dict.fromkeys(MLA_FIELDS, "0")
    source = by_id[SAME_ARCHITECTURE[row["id"]]] if row["id"] in SAME_ARCHITECTURE else row
    cells = {}
    for name, pattern in MLA_FIELDS.items():
        stated = set(pattern.findall(source["notes"]))
        assert len(stated) <= 1, f"{row['id']}: the notes state {name} {sorted(stated)}"
        cells[name] = stated.pop() if stated else "0"
    nope, rope = int(cells["qk_nope_head_dim"]), int(row["qk_rope_head_dim"] or 0)
    assert not nope or nope + rope == int(row["head_dim"]), f"{row['id']}: qk_nope + qk_rope is not head_dim"
    return cells


def fused_cells(row: dict[str, str]) -> dict[str, str]:
    """experts_fused and router_fused as cells (true/false), from the cited config.json's model_type."""
    layout = fused_experts(CONFIG_MODEL_TYPE.get(row["id"], ""))
    return {"experts_fused": str(layout.experts_fused).lower(), "router_fused": str(layout.router_fused).lower()}
