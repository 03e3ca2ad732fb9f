"""infra-gen: one GPU workload file in, the cheapest cloud infrastructure that runs it out."""

__version__ = "0.1.0"

__all__ = ["__version__"]
