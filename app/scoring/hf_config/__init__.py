"""Reading a pasted Hugging Face config.json: its keys, its parameter counts, its release precision, and the
layout facts (fused experts, MLA sizes) a LoRA run depends on, checked against what a custom model claims."""
