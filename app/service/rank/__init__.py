"""A ranking for the faces: the workload's model checked (model_spec), the engine's ranking run and answered
(ranking, answer_body), one results page of it (ranked_page), a page's column sort (rank_sort), all as plain,
JSON-ready values (plain)."""
