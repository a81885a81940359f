"""Numbers as people type them into the pages' forms (the reading itself is app.scoring's, which the mix text form
shares). A query string's `500_000` never reaches it: values.underscore_errors refuses it first, naming the field.
Only the pages and their twins read numbers this way; the JSON API (/api/v1) takes JSON numbers as JSON
writes them."""

from __future__ import annotations

from app.scoring.input_checks.typed_numbers import as_typed_number

# Typed text, never a number to read: ids among them, so `model=1e3` is "unknown model '1e3'", not '1000'.
FREE_TEXT = frozenset({"arch_name", "arch_quantization", "hf_config_json", "mix", "model", "train_model", "gpu"})

__all__ = ["FREE_TEXT", "as_typed_number"]
