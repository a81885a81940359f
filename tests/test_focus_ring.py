"""The keyboard focus ring stands out from what it sits on: WCAG 2.2 SC 1.4.11 (non-text contrast) asks 3:1 against
adjacent colours. #7fb2ea was 2.2:1 on white."""

from __future__ import annotations

import re

from app.config import PROJECT_ROOT

CSS = (PROJECT_ROOT / "static" / "css" / "app.css").read_text(encoding="utf-8")


def _luminance(hex_colour: str) -> float:
    """WCAG 2.x relative luminance of #rrggbb."""
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _variable(name: str) -> str:
    return re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{6}})", CSS).group(1)  # type: ignore[union-attr]


def test_contrast_matches_wcag_examples() -> None:
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0 and round(contrast("#7fb2ea", "#ffffff"), 1) == 2.2


def test_focus_ring_has_3_to_1_on_every_background_it_meets() -> None:
    rings = re.findall(r":focus-visible[^{]*\{[^}]*outline:\s*\d+px solid ([^;]+);", CSS)
    assert rings, "no focus ring found"
    for ring in rings:
        colour = _variable(ring.strip()[6:-1]) if ring.strip().startswith("var(") else ring.strip()
        for background in ("bg", "panel", "accent-bg", "warn-bg"):
            assert contrast(colour, _variable(background)) >= 3, (colour, background)
