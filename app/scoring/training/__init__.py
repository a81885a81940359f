"""Training estimates and rankings. estimate.py answers one configuration (GPU type, count, layout), with the words
of its assumptions (assumptions.py) and the jobs a machine can supply (configurations.py); step/ times a step and
explains it, layouts/ sizes and chooses the parallel layout, ranking/ ranks offers by what the run bills, and run/
holds a run to its offer's terms, deadline and budget."""
