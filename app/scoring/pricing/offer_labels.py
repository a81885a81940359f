"""An offer's instance or region label beside its provider's name, without saying the name's end twice.

RunPod's seeded offers name their region "Secure Cloud" and "Community Cloud", the ends of the providers' names
("RunPod Secure Cloud"): joined as they stand, a provider cell read "RunPod Secure Cloud Secure Cloud".
"""

from __future__ import annotations


def label_beyond_name(provider_name: str, label: str) -> str:
    """`label`, or "" where the provider's name already ends with it as whole words (case and spaces aside):
    ('RunPod Secure Cloud', 'Secure Cloud') -> '', ('Lambda', 'gpu_8x_h100_sxm5') -> 'gpu_8x_h100_sxm5',
    ('RunPod Secure Cloud', 'Cloud') -> '' too, but ('Nebius', 'us') -> 'us' ('Nebius' does not end in the word)."""
    name_words = provider_name.lower().split()
    label_words = label.lower().split()
    if label_words and name_words[-len(label_words) :] == label_words:
        return ""
    return label
