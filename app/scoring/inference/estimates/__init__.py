"""Estimating one inference configuration: solving its operating point, the configurations a machine can
supply, and what an estimate returns.
"""
