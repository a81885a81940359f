"""_solve runs ~150 times a ranking: a closure in it (a nested def, a lambda or a comprehension reading its locals) made
its arguments and locals cells, set up on every call, ~5% of the 70B ranking's CPU under py-spy at its def line. Its
deferred words are partials and its one filtering comprehension a function (found by speed28)."""

from app.scoring.inference.estimates import estimate


def test_solve_sets_up_no_cells():
    assert estimate._solve.__code__.co_cellvars == ()
    assert estimate._solve.__code__.co_freevars == ()
