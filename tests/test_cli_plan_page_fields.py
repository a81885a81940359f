"""`gpumatch plan` takes what /plan takes: every field of the page is a flag of the command, or a flag it refuses with
the page's reason. `--train-expert-parallel 2` answered argparse's bare "unrecognized arguments" where /plan says why a
run takes none, and the page's train_steps had no flag at all (found by small2)."""

from __future__ import annotations

import argparse
import json
from urllib.parse import parse_qsl, urlsplit

import pytest

from app.cli.main import build_parser, main
from app.service.query.plan import PLAN_FIELDS, TRAIN_PREFIX

FILE_INSTEAD = {"hf_config": "--hf-config"}  # the API's config object is a file here
NOT_FIELDS = {"phase"}  # a ranking link's phase=inference, no question of the plan's


def _flags(kind: str) -> set[str]:
    plan = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["plan"]
    sub = next(a for a in plan._actions if isinstance(a, argparse._SubParsersAction)).choices[kind]
    return {flag for action in sub._actions for flag in action.option_strings}


def test_every_field_of_the_page_is_a_flag_of_plan_lifecycle():
    flags = _flags("lifecycle")
    page = (PLAN_FIELDS.names | set(PLAN_FIELDS.reasons)) - NOT_FIELDS
    missing = [n for n in page if FILE_INSTEAD.get(n, "--" + n.replace("_", "-")) not in flags]
    assert not missing


def test_plan_serving_takes_the_serving_fields():
    flags = _flags("serving")
    page = {n for n in PLAN_FIELDS.names | set(PLAN_FIELDS.reasons) if not n.startswith(TRAIN_PREFIX)} - NOT_FIELDS
    assert not [n for n in page if FILE_INSTEAD.get(n, "--" + n.replace("_", "-")) not in flags]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["lifecycle", "--train-expert-parallel", "2"], "/plan?model=llama-3.1-8b&months=3&train_expert_parallel=2"),
        (["lifecycle", "--scenario", "max_throughput"], "/plan?model=llama-3.1-8b&scenario=max_throughput"),
        (["serving", "--batch", "8"], "/plan?model=llama-3.1-8b&batch=8"),
    ],
)
def test_a_refused_flag_says_the_page_s_reason(client, capsys, argv, said):
    page = client.get(said.replace("/plan?", "/plan.json?")).json()["detail"][0]
    assert main(["plan", argv[0], "--model", "llama-3.1-8b", *argv[1:]]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{argv[1]}: not a flag of `gpumatch plan {argv[0]}`: ")
    assert page["message"].partition(": ")[2] in err  # the page's reason, after its "not a field of this form"


def test_train_steps_sets_the_budget_as_the_page_does(client, capsys):
    run = {"train_steps": "100", "train_seq_len": "1024", "train_global_batch_seqs": "8"}
    page = client.get("/plan.json", params={"model": "llama-3.1-8b", "months": "12", **run}).json()
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in run.items()]
    assert main(["plan", "lifecycle", "--model", "llama-3.1-8b", *flags, "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert dict(parse_qsl(urlsplit(cli["share_url"]).query))["train_total_tokens"] == "819200"
    assert cli["share_url"] == page["share_url"]


def test_a_bad_train_steps_is_named_with_an_unknown_id(database, capsys):
    assert main(["plan", "lifecycle", "--model", "llama-3.1-8b", "--train-steps", "0", "--train-gpus", "NOPE"]) == 2
    err = capsys.readouterr().err
    assert "--train-steps: must be a whole number of optimizer steps" in err
    assert "--train-gpus: unknown GPU id 'NOPE'" in err
