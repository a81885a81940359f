"""How a page is drawn: the one helper that answers page, htmx fragment or JSON twin (with the templates and their
filters), the Plotly figures as plain dicts, and each chart's numbers as a table for readers without JavaScript."""
