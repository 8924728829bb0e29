"""The level JSON Schema (Levels/schema/level.schema.json) accepts every bundled level and rejects
malformed ones, so tools in other languages can trust it."""
import copy
import json
import pathlib

import jsonschema
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "Levels" / "schema" / "level.schema.json").read_text())
LEVELS = sorted((ROOT / "Levels").glob("*.json"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_schema_is_a_valid_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_there_are_bundled_levels():
    assert any(p.name == "bench-grid.json" for p in LEVELS)


@pytest.mark.parametrize("path", LEVELS, ids=lambda p: p.name)
def test_bundled_level_conforms(path):
    errors = list(VALIDATOR.iter_errors(json.loads(path.read_text())))
    assert errors == [], [e.message for e in errors]


BASE = {"format": 1, "name": "T", "mode": {"type": "classic"}, "power": "none",
        "pegs": [{"kind": "orange", "x": 100, "y": 200}], "blocks": []}


def mutated(fn):
    level = copy.deepcopy(BASE)
    fn(level)
    return level


@pytest.mark.parametrize("level", [
    mutated(lambda l: l["pegs"][0].update(kind="pink")),
    mutated(lambda l: l["pegs"][0].update(radius=-5)),
    mutated(lambda l: l["pegs"][0].update(radius="NaN")),
    mutated(lambda l: l["pegs"][0].update(x=900)),
    mutated(lambda l: l["pegs"][0].update(radus=5)),
    mutated(lambda l: l["pegs"][0].update(shape="brick")),
    mutated(lambda l: l.update(format=2)),
    mutated(lambda l: l.update(power="lasers")),
    mutated(lambda l: l.update(mode={"type": "classic", "balls": 0})),
    mutated(lambda l: l.update(mode={"type": "beat_the_score"})),
    mutated(lambda l: l["blocks"].append({"shape": "hexagon", "x": 1, "y": 1, "width": 10, "height": 10})),
    mutated(lambda l: l["blocks"].append({"shape": "triangle", "x": 1, "y": 1, "width": 10, "height": 10, "springiness": 2})),
    mutated(lambda l: l.update(pegs=[{"kind": "blue", "x": 10, "y": 10}] * 1001)),
    mutated(lambda l: l.pop("name")),
    mutated(lambda l: l.update(name="n" * 81)),
    mutated(lambda l: l.update(author="a" * 81)),
    mutated(lambda l: l.update(description="d" * 1001)),
], ids=["kind", "negative-radius", "nan-radius", "off-board", "unknown-field", "brick-without-size", "format",
        "power", "zero-balls", "missing-target", "block-shape", "springiness", "too-many-pegs", "no-name",
         "long-name", "long-author", "long-description"])
def test_malformed_level_rejected(level):
    assert not VALIDATOR.is_valid(level)


def test_base_is_valid():
    assert VALIDATOR.is_valid(BASE)


def test_text_at_its_limits_is_valid():
    assert VALIDATOR.is_valid(mutated(lambda l: l.update(name="n" * 80, author="a" * 80, description="d" * 1000)))
