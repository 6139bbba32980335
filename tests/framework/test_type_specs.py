"""TensorArraySpec, OptionalSpec, TraceType, FunctionType, AtomicFunction, check_pinned against real TF
(tests/goldens/type_specs.json)."""

import pytest
import value_cases
from type_specs_cases import CASES

import tensorlet as tf

GOLDEN = value_cases.load("type_specs.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)
