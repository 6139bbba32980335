"""User-style TF programs give what real TF 2.21 gives (dtype, shape and values; see tools/record_tf_goldens)."""

import importlib
import json
import pathlib

import numpy as np
import pytest

import tensorlet as tf

HERE = pathlib.Path(__file__).parent
GOLDENS = json.loads((HERE.parent / "goldens" / "programs.json").read_text())


@pytest.mark.parametrize("program", sorted(GOLDENS))
def test_program_matches_tf(program):
    got = importlib.import_module(program).run(tf)
    expected = GOLDENS[program]
    assert sorted(got) == sorted(expected)
    for name, exp in expected.items():
        g = got[name]
        if isinstance(exp, str):
            assert g == exp, name
            continue
        assert g[0] == exp[0], f"{name}: dtype {g[0]}, TF gives {exp[0]}"
        assert g[1] == exp[1], f"{name}: shape {g[1]}, TF gives {exp[1]}"
        np.testing.assert_allclose(np.asarray(g[2], dtype=np.float64), np.asarray(exp[2], dtype=np.float64),
                                   rtol=1e-4, atol=2e-4, err_msg=name)
