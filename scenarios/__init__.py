"""The paper's validation scenarios as data (makes the directory importable as
``grounded.scenarios`` so ``grounded demo`` finds them in any installation)."""
