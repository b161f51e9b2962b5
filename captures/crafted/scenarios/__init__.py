"""The crafted captures' builders, one module per capture family (see
captures/crafted/README.md); make-crafted.py runs them all."""
