"""gpumatch: rank GPU offers for a training or inference workload."""

__version__ = "0.1.0"
