"""The accuracy commands: `gpumatch validate`, `accuracy-report` and `device-check` (commands), the text tables they
print (tables), and docs/ACCURACY.md's opening prose (accuracy_header.md, which `make accuracy` puts the tables after).
"""
