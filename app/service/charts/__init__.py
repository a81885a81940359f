"""Charts' numbers (series, axes with their units, the no-JavaScript table): built here once, read by the pages (which
draw them with plotly), their JSON twins, the /api/v1 endpoints and the CLI alike."""
