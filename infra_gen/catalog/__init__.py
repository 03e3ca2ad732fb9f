"""The price catalog: accelerators and GPU instance offers with dated, sourced prices."""
