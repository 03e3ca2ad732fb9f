"""``python -m infra_gen``: the same command as ``infra-gen``."""

from infra_gen.cli import main

if __name__ == "__main__":  # guarded: spawned worker processes re-import this module
    main()
