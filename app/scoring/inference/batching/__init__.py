"""The running batch and where a load settles: operating points under each batching mode, the queues in
front of them, batch jobs, finite runs replayed step by step, and the curves the charts sweep.
"""
