"""'How we estimate' (/methodology): the page, every constant the estimator uses read with its source comment from
the scoring modules' own text, and the soft roofline's worked example computed by the engine."""
