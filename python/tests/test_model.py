"""Declared parameters, decisions and the checks of a policy class."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import schedlab
from schedlab._model import Action, parse_value
from schedlab._plugin import check_policy_class, describe


@pytest.mark.parametrize(
    ("typ", "text", "want"),
    [
        ("int", "42", 42),
        ("int", "-7", -7),
        ("float", "0.25", 0.25),
        ("bool", "true", True),
        ("bool", "F", False),
        ("bool", "1", True),
        ("string", "shortest", "shortest"),
    ],
)
def test_parse_value(typ: str, text: str, want: object) -> None:
    p = schedlab.Param("p", typ, text)
    assert parse_value(p, text) == want
    assert type(parse_value(p, text)) is type(want)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"type": "integer", "default": "1"}, "is not one of"),
        ({"type": "int", "default": "ten"}, "ten"),
        ({"type": "bool", "default": "yes"}, "yes"),
        ({"type": "string", "default": "c", "choices": ("a", "b")}, "c"),
        ({"type": "int", "default": 3}, "written as a string"),
    ],
)
def test_bad_params_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        schedlab.Param("p", **kwargs)  # type: ignore[arg-type]


def test_value_outside_choices_is_refused() -> None:
    p = schedlab.Param("order", "string", "a", choices=("a", "b"))
    with pytest.raises(ValueError, match="z"):
        parse_value(p, "z")


class _Good(schedlab.Policy):
    name = "good"
    version = "1.2.3"
    description = "does nothing"
    params = (schedlab.Param("k", "int", "3", doc="a count"),)

    def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
        return []


def test_describe_is_what_the_host_reads() -> None:
    d = describe(_Good)
    assert d["name"] == "good"
    assert d["version"] == "1.2.3"
    assert d["params"] == [{"name": "k", "type": "int", "default": "3", "doc": "a count"}]
    assert d["protocol_version"] == 101
    assert d["sdk_version"].startswith("python-")


def test_policy_class_checks() -> None:
    class NoName(schedlab.Policy):
        def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
            return []

    class NoSchedule(schedlab.Policy):
        name = "x"

    class Twice(schedlab.Policy):
        name = "twice"
        params = (schedlab.Param("k", "int", "1"), schedlab.Param("k", "int", "2"))

        def schedule(self, state: schedlab.State) -> Sequence[schedlab.Decision]:
            return []

    with pytest.raises(ValueError, match="no name"):
        check_policy_class(NoName)
    with pytest.raises(ValueError, match="does not define schedule"):
        check_policy_class(NoSchedule)
    with pytest.raises(ValueError, match="declared twice"):
        check_policy_class(Twice)
    with pytest.raises(TypeError, match="not a subclass"):
        check_policy_class(int)
    check_policy_class(_Good)


def test_decision_constructors() -> None:
    assert schedlab.wake_at(10).action is Action.WAKE
    assert schedlab.wake_at(10).time == 10
    assert schedlab.wake_at(10).job is None
