"""Per-token API prices at a traffic: the quotes compared with dedicated GPUs, their stand-ins and their notes."""
