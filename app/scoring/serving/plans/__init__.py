"""Serving plans: dedicated options priced for a traffic against serverless, the break-even, the verdict, and
train-then-serve."""
