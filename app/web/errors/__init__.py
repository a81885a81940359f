"""Errors as clients see them: the handlers (JSON for the API and the .json twins, a readable page for browsers,
never a bare 500) and the one JSON shape every error answers in."""
