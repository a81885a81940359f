"""Validation: case files read and summarised, issue 10's accuracy targets checked, its product questions answered.

`gpumatch validate` and `make accuracy` (docs/ACCURACY.md) start here.
"""
