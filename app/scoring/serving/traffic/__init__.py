"""Traffic over a week and the replicas it keeps up: the hourly model, its monthly cost, and scale to zero."""
