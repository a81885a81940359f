"""One forward pass of one inference configuration: the context it is timed in, its memory, and the step's
parts (rooflines, efficiency factors, communication, host time, routed experts, DP attention, techniques).
"""
