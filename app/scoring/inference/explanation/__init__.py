"""What an inference estimate shows: its explanation lines (bytes, FLOPs, time per term) and the
assumption notes of a solved configuration.
"""
